// A cell's clients kept across its trials: rpclab-client processes started
// once with --trials-from-stdin, each told a trial's record and start gate
// on a line and answering when its record is written. A speed cell's
// trials then measure calls, not a client's launch (docs/running.md,
// "rpclab speed"); dependability trials start fresh clients, as they start
// a fresh server and link.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/placement/cell_processes.h"

namespace rpclab::harness {

class KeptClients {
 public:
  // Starts `cell.clients` clients against `endpoint` on `host`, with
  // `extra_args` (the cell's; no record, gate or start instant), their
  // FIFOs and logs in `dir` (the cell's folder). Throws CellFailure.
  KeptClients(const CellConfig& cell, const std::vector<std::string>& extra_args, const netem::Host& host,
              const std::string& endpoint, const std::string& dir, const ProcessPlacement& placement,
              process::CommandLog& log);
  ~KeptClients();  // end of input: each client exits; the FIFOs go
  KeptClients(const KeptClients&) = delete;
  KeptClients& operator=(const KeptClients&) = delete;

  // One trial: records in `files`, behind the start gate in `gate_dir`
  // ("" for none). As run_clients(): `tick` about once a second, `poll` on
  // every pass of the wait, SIGTERM at `limit` (the clients then write what
  // they have and leave: this object is spent). Throws CellFailure when a
  // client dies or says it could not run; the object is then spent too.
  ClientResults run_trial(const CellFiles& files, const std::string& gate_dir, std::chrono::seconds limit,
                          const std::function<void()>& tick, const WaitPoll& poll);
  bool spent() const { return spent_; }

 private:
  struct Client;
  std::vector<std::unique_ptr<Client>> clients_;
  ProcessPlacement placement_;
  bool spent_ = false;
};

// Whether a cell's clients may be kept: rpclab-client's own transports (an
// adapter's client program runs one trial), one handle for the whole plan
// (no application retry, which makes new ones).
bool clients_can_be_kept(const CellConfig& cell);

}  // namespace rpclab::harness
