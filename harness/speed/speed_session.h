// Runs speed trials. Unlike a dependability trial, a speed trial needs no
// fresh server or ledger, so a session keeps each topology up for the
// whole run and one server per transport and topology while it lasts. The
// trials of one (connection, clients, size) group take turns (floor, A, B,
// floor, A, B, ...: speed_matrix.h), so every server of a topology serves
// in turn. A cell's clients are kept across its trials too (each trial is
// one run of their calls, behind its own warm-up and start gate), so the
// trials measure calls rather than a client program's launch.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/start_gate.h"
#include "harness/placement/cell_processes.h"
#include "harness/record/trial_record.h"
#include "harness/run/experiment.h"
#include "harness/placement/placement.h"
#include "process/command_log.h"
#include "netem/topology/topology.h"

namespace rpclab::harness {

// Why a speed cell cannot run here ("" when it can), from the cell and the
// machine alone: the Experiment row's cannot_run, and the session's first
// word on each trial.
std::string speed_cannot_run(const CellConfig& cell, const CellEnvironment& env);

class SpeedSession {
 public:
  SpeedSession(std::string run_dir, bool latency_pinned) : run_dir_(std::move(run_dir)), latency_pinned_(latency_pinned) {}
  ~SpeedSession();
  // A TrialRunner (experiment.h).
  void run_trial(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env, process::CommandLog& log,
                 TrialRecord& trial);

 private:
  // Where the cell's trials run: this kernel's hosts of its topology, a
  // path's namespaces (harness/paths/: proxy or balancing client before
  // its replicas), or --server-host, kept for the run.
  Placement& placement(const CellConfig& cell, CellEnvironment& env, process::CommandLog& log);
  // The cell's server, started once and kept; made ready for one more trial.
  TrialServer& server(const CellConfig& cell, Placement& at, CellEnvironment& env);
  void measure_rpc(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env, process::CommandLog& log,
                   TrialRecord& trial);
  void measure_sockperf(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env, process::CommandLog& log,
                        TrialRecord& trial);
  void measure_ghz(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env, process::CommandLog& log,
                        TrialRecord& trial);
  double barrier_ms(const CellConfig& cell) const;
  std::vector<std::string> call_args(const CellConfig& cell) const;
  std::vector<std::string> start_args(const CellConfig& cell, const StartGate* gate, double* barrier) const;
  // The trial's clients: the cell's kept ones where they can be kept
  // (placement/kept_clients.h), started for the trial otherwise.
  ClientResults run_clients(const CellConfig& cell, const TrialPlace& place, Placement& at, TrialServer& srv,
                            CellEnvironment& env, const StartGate* gate, const WaitPoll& open_gate,
                            TrialRecord& trial, double* barrier);
  std::unique_ptr<StartGate> start_gate(const CellConfig& cell, const Placement& at, const TrialPlace& place) const;
  void learn_start(const CellConfig& cell, const std::vector<CallRecord>& records, int64_t launched_ns);
  static std::string server_key(const CellConfig& cell);
  static std::string placement_key(const CellConfig& cell);
  struct RunningServer {
    std::unique_ptr<CellFiles> files;
    std::unique_ptr<TrialServer> server;
    std::optional<nlohmann::json> last_stats;  // its stats after its last trial
  };

  std::string run_dir_;
  bool latency_pinned_;
  std::map<std::string, std::unique_ptr<Placement>> placements_;  // by placement_key
  std::map<std::string, RunningServer> servers_;  // by server_key
  // Each cell's clients, kept from its first trial to its last (by the
  // cell's index); a failed or cut trial lets them go, and the next starts
  // new ones.
  std::map<size_t, std::unique_ptr<KeptClients>> kept_;
  // Parallel clients whose program cannot pass a start gate begin their
  // recorded calls together at an instant (--start-at), learnt from how long one client took to launch and warm
  // up, by topology, transport, connection and size (see barrier_ms), and
  // how many trials of each client count began apart all the same.
  std::map<std::string, double> launch_ms_;
  std::map<std::string, int> late_;
};

}  // namespace rpclab::harness
