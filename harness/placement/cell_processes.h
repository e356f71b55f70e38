// The processes of one cell: a server under test and its clients, each a
// real rpclab-server / rpclab-client process in its host's namespace.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <sys/types.h>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/call_record.h"
#include "server/ledger.h"
#include "harness/record/cell_config.h"
#include "harness/record/trial_record.h"
#include "process/child_process.h"
#include "netem/events/event_runner.h"
#include "netem/topology/topology.h"

namespace rpclab::harness {

// Where a cell keeps its files: logs, call records, the ledger.
struct CellFiles {
  std::string dir;
  std::string path(const std::string& name) const { return dir + "/" + name; }
  std::string client_record(int k) const { return path("client-" + std::to_string(k) + ".rec"); }
  std::string client_log(int k) const { return path("client-" + std::to_string(k) + ".log"); }
};

struct ProcessPlacement {
  std::string bin_dir;                // where rpclab-server and rpclab-client live
  std::vector<int> server_cpus, client_cpus;
  const std::atomic<bool>* stop = nullptr;  // set on SIGINT/SIGTERM of the harness
};

// CPU sets for a cell: with pinning and two or more CPUs, the server (and
// its hogs) get CPU 0 and the clients the rest, as Levy's clients ran on
// unloaded machines.
ProcessPlacement place_processes(const CellConfig& cell, const std::string& bin_dir, int cpus,
                                 const std::atomic<bool>* stop);

// rpclab-server's command line for `cell`, listening on ADDR:PORT, its
// files in `files` (on whichever host runs it).
std::vector<std::string> server_argv(const CellConfig& cell, const std::string& listen, const CellFiles& files,
                                     const std::string& bin_dir);

// rpclab-client's command line for client `k` of `cell` against
// `endpoint`, its record in `files` (on whichever host runs it).
std::vector<std::string> client_argv(const CellConfig& cell, int k, const std::string& endpoint,
                                     const CellFiles& files, const std::string& bin_dir);

// Why `cell` cannot run on its transport when that is an adapter whose
// manifest does not claim what the cell needs (the at-most-once table;
// for speed, the server's stats), or that `remote` (--server-host) would
// place where its programs are not; or "" (docs/adapters.md).
std::string adapter_cannot_run(const CellConfig& cell, bool remote = false);

// What the server ran: its journal, checked against its ledger.bin when it
// stopped cleanly (both in `files`). Throws CellFailure.
Ledger read_server_ledger(const CellFiles& files);

// A trial's server, wherever it runs: on this kernel (ServerUnderTest) or
// on --server-host (RemoteServer).
class TrialServer {
 public:
  virtual ~TrialServer() = default;
  virtual std::string endpoint() const = 0;  // "ADDR:PORT" for clients
  // Counters and CPU time so far (SIGUSR1 -> stats file; an adapter that
  // writes none: its CPU time from /proc, with "cpu_from": "proc" and no
  // counters); nullopt if no answer.
  virtual std::optional<nlohmann::json> stats() = 0;
  // Throws CellFailure if the server has died, unless an event killed it.
  virtual void check_alive() = 0;
  // SIGTERM, then what it ran: from its journal, checked against the
  // ledger.bin it wrote, both fetched into `files` first if they are
  // elsewhere. Throws CellFailure.
  virtual Ledger stop_and_read_ledger(const CellFiles& files) = 0;
  // What server events (a crash, a stall) act on; null where none can.
  virtual netem::ServerControl* control() { return nullptr; }
  // Every server an event can name (target=replica:K is element K-1): one,
  // control(), unless the trial has several (a path's replicas).
  virtual std::vector<netem::ServerControl*> controls() {
    if (netem::ServerControl* one = control()) return {one};
    return {};
  }
  // Its process id on this kernel, for the load meter; none elsewhere.
  virtual std::optional<pid_t> local_pid() const { return std::nullopt; }
  // A server kept for many trials (speed): made ready for one more that
  // lasts at most `seconds` (a remote one's dead-man switch starts again).
  virtual void keep_for(int seconds) {}
  // What the trial's record says of it beyond where it ran.
  virtual void describe(TrialRecord& trial) const {}
  // A server that knows more of what ran than one journal (a path's
  // replicas, harness/paths/path_servers.h) decides the trial's causes
  // itself, after the join, and adds its own section; false: the trial's
  // usual attribution (harness/causes/cell_causes.h) applies. Throws
  // CellFailure when its causes do not add up to `extra_executions`.
  virtual bool explain(const CellConfig& cell, const std::vector<CallRecord>& records, uint64_t extra_executions,
                       TrialRecord& trial) {
    return false;
  }
};

// How a server beyond the cell's own settings starts: one replica of a
// path (harness/paths/) gets the shared at-most-once table's address and
// the port every replica shares, which a proxy's configuration names.
struct ServerStart {
  std::vector<std::string> extra_args;  // after the cell's own
  bool fixed_port = false;              // below the ephemeral range, as for a restart
};

// The server of a cell, and the ServerControl its server events act on:
// killed and started again on the same address, stopped and continued.
class ServerUnderTest : public netem::ServerControl, public TrialServer {
 public:
  // Starts the server and waits until it serves; throws CellFailure with the
  // server's own words when it cannot start (port in use, bad option). A
  // cell whose events restart the server gets a port below the ephemeral
  // range, so no client socket can take it while the server is down.
  ServerUnderTest(const CellConfig& cell, const netem::Host& host, const CellFiles& files,
                  const ProcessPlacement& placement, process::CommandLog& log, ServerStart how = {});
  ~ServerUnderTest() override;

  std::string endpoint() const override;
  std::optional<pid_t> local_pid() const override;
  std::optional<nlohmann::json> stats() override;
  void check_alive() override;
  // SIGTERM, then the ledger: from the journal, checked against the
  // ledger.bin the server wrote (in its own files). Throws CellFailure.
  Ledger stop_and_read_ledger(const CellFiles& files) override;
  netem::ServerControl* control() override { return this; }

  // ServerControl, for server-crash and server-stall events.
  nlohmann::json kill() override;
  nlohmann::json restart() override;  // throws CellFailure when it does not serve again
  nlohmann::json pause() override;
  nlohmann::json resume() override;
  // ss -K on its connected TCP sockets, in its namespace (a server on the
  // host's own namespace refuses: that would reset the host's connections).
  nlohmann::json reset_connections() override;

 private:
  // Starts one life of the server on `port` (0: any); false when it exited
  // because the port is taken. Throws CellFailure for any other failure.
  bool start(uint16_t port);
  std::string log_path() const;  // this life's log
  Ledger read_ledger() const;

  // Copies: a restart needs them long after the caller's locals are gone
  // (a speed session keeps its servers for the whole run).
  const CellConfig cell_;
  const netem::Host host_;
  const CellFiles& files_;
  const ProcessPlacement placement_;
  process::CommandLog& log_;
  const ServerStart how_;
  std::string address_;
  uint16_t port_ = 0;
  int lives_ = 0;            // starts so far: the first, then one per restart
  bool killed_ = false;      // down because an event killed it
  int stats_generation_ = 0;
  // An inotify instance on files_.dir, made at the first stats request and
  // kept: closing one waits for an RCU grace period (9 ms in a speed
  // trial's trace), more than the request it served.
  int stats_watch_ = -1;
  std::unique_ptr<process::ChildProcess> process_;
};

// Called on every pass of a wait on clients (the timed events, a start
// gate); returns a file descriptor whose readability ends the pass at once
// (-1: none), so that what the hook waits for (a client ready at the gate)
// is seen when it happens, not at the pass's next 5 ms tick.
using WaitPoll = std::function<int()>;

struct ClientResults {
  std::vector<CallRecord> records;  // index k-1 for client k
  bool truncated = false;           // the cell's time limit stopped them early
};

// Starts `cell.clients` clients against `endpoint`, waits for all of them
// (calling `tick` about once a second, and `poll`, when given, on every
// pass of its 5 ms wait loop, which the fd `poll` returns ends early: the
// timed events' hook, the start gate's), and reads their
// call records. Clients still running at `limit` get SIGTERM and write what
// they have.
ClientResults run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                          const netem::Host& host, const std::string& endpoint, const CellFiles& files,
                          const ProcessPlacement& placement, std::chrono::seconds limit,
                          const std::function<void()>& tick, process::CommandLog& log,
                          const WaitPoll& poll = {});

// Client k's call record in `files`. Throws CellFailure.
CallRecord read_client_record(const CellFiles& files, int k);

// The last lines of a log file, for failure reasons.
std::string log_tail(const std::string& path, size_t lines = 5);

}  // namespace rpclab::harness
