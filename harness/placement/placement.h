// Where a trial's server and clients live, and what can be done to the
// link between them: a placement. An experiment's trial is written once,
// against this interface; it asks the placement for each piece and has no
// path of its own per place. The placements:
//
// - this kernel (local_placement.h): network namespaces joined by a veth
//   pair (two-host), one namespace's own loopback, or the host's loopback
//   without root; faults by tc netem or nftables; CPU hogs beside the
//   server; the client's end of the link visible to the wire capture;
// - another machine over ssh (remote/remote_placement.h, --server-host,
//   and --client-host for the clients): the server there behind a dead-man
//   switch, the faults on its data interface;
// - a user-mode-linux guest (guest_cell.h): where a cell's faults need
//   netem and this kernel has none, the whole trial moves into a guest
//   whose kernel has it, and runs there, the same trial on a local
//   placement of the guest's own.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/ledger.h"
#include "harness/record/cell_config.h"
#include "harness/placement/cell_processes.h"
#include "harness/placement/kept_clients.h"
#include "harness/record/trial_record.h"
#include "netem/events/event_runner.h"
#include "netem/faults/fault_backend.h"
#include "netem/topology/topology.h"
#include "process/command_log.h"

namespace rpclab::harness {

struct TrialPlace;

// The faults on a trial's link: the backend chosen, its counters when the
// faults went on, and what they did by the end.
class Link {
 public:
  Link() = default;
  Link(netem::Choice choice, std::unique_ptr<netem::LinkFaults> backend)
      : choice_(std::move(choice)), backend_(std::move(backend)) {}
  // The faults on, their state (link-before.txt) and counters kept.
  void apply(const netem::FaultSpec& faults, const CellFiles& files);
  // The record's `faults`: configured, and (with a backend) measured since
  // apply(), with the state at the end (link-after.txt).
  TrialFaults measured(const netem::FaultSpec& faults, const CellFiles& files);
  // What link events (a partition, a reset) act on; null without one.
  netem::FaultBackend* events_backend() const;
  bool applied() const { return backend_ != nullptr; }

 private:
  netem::Choice choice_{netem::BackendKind::kNone, "no faults"};
  std::unique_ptr<netem::LinkFaults> backend_;
  netem::LinkCounters before_;
};

// The load on the server's CPU while the clients run: CPU hogs beside the
// server and what that CPU ran, where the server shares this machine.
class ServerCpuLoad {
 public:
  virtual ~ServerCpuLoad() = default;
  virtual void start_measuring(TrialServer& server) = 0;  // as the clients start
  virtual double settle_s() const { return 0; }           // how long the hogs took to run
  virtual TrialLoad finish() = 0;                         // hogs stopped; the record's `load`
};

// The client's end of the link as this machine sees it: where a capture or
// the link's counters can be read, or why nothing can be.
struct ClientEnd {
  const netem::Host* host = nullptr;  // null: not this machine's to read
  std::string why_not;                // when null, or on the host's own loopback
};

class Placement {
 public:
  virtual ~Placement() = default;
  // Where the trial ran, in its record (`topology_place`, `hosts`).
  virtual void describe(TrialRecord& trial) const = 0;
  // The CPUs of the server (and its hogs) and of the clients.
  virtual ProcessPlacement processes(const CellConfig& cell) const = 0;
  // The cell's server, started and serving, its files in `files` (or,
  // on another machine, in a folder called `name` there until it stops).
  // Throws CellFailure.
  virtual std::unique_ptr<TrialServer> start_server(const CellConfig& cell, const CellFiles& files,
                                                    const std::string& name) = 0;
  // The cell's faults on the link (a Link without backend when it asks none).
  virtual Link impair(const CellConfig& cell, const CellFiles& files) = 0;
  // The faults off again, when the end of the trial does not take them
  // off by itself (the remote's interface outlives the trial).
  virtual void restore() {}
  virtual std::unique_ptr<ServerCpuLoad> load(const CellConfig& cell, const ProcessPlacement& cpus) = 0;
  virtual ClientEnd client_end() const = 0;
  // The server's end of the link, for a tool that serves there itself
  // (sockperf); null where the placement does not own it.
  virtual const netem::Host* server_end() const { return nullptr; }
  // Whether the clients run on this machine, seeing its files (a start
  // gate's FIFOs in the trial's folder, common/start_gate.h).
  virtual bool clients_see_files() const { return true; }
  // Runs the cell's clients against `endpoint` until they are done or
  // `limit` is up (then SIGTERM: they write what they have), calling
  // `tick` about once a second and `poll` on every pass of the wait (the
  // timed events' hook), and reads their call records. Throws CellFailure.
  virtual ClientResults run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                                    const std::string& endpoint, const CellFiles& files, const TrialPlace& place,
                                    std::chrono::seconds limit, const std::function<void()>& tick,
                                    const WaitPoll& poll) = 0;
  // The cell's clients started once to run its trials one after another
  // (placement/kept_clients.h), their FIFOs and logs in `dir`; null where
  // this placement cannot keep them (another host's clients).
  virtual std::unique_ptr<KeptClients> keep_clients(const CellConfig&, const std::vector<std::string>&,
                                                    const std::string&, const std::string&) {
    return nullptr;
  }
};

}  // namespace rpclab::harness
