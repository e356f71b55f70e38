// A trial's servers on a path (path_table.h): N replicas, each a real
// rpclab-server (or an adapter's server) in its own namespace with its own
// files (replica-K/ in the trial's folder: journal, ledger, log), the
// path's proxy in the middle host, and with the shared at-most-once table
// a Redis there that every replica is given. To the trial it is one
// TrialServer: its endpoint is the proxy's (or, for a client that
// balances, every replica's), its ledger the union of the replicas'
// (a (client, seq) run on two replicas is a duplicate like any other),
// and a server event strikes the replica it names (target=replica:K, 1
// unless given): its process, its connections, or its place in the
// proxy's pool.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/paths/path_table.h"
#include "harness/paths/proxy_process.h"
#include "harness/placement/cell_processes.h"
#include "harness/record/path_figures.h"
#include "netem/topology/path_topology.h"

namespace rpclab::harness {

// The union of the replicas' ledgers: every execution counted wherever it
// ran. Levy's per-server order check means nothing across replicas (a
// balancer alternates seqs between them), so the union has no mismatches.
Ledger union_of(const std::vector<Ledger>& ledgers);

// Where each call ran, from the replicas' ledgers: executions per replica,
// calls that ran on two or more, and executions on another replica than a
// call's first... counted as: for each (client, seq), its executions less
// those on the replica that ran it most (at least one there).
void add_replica_figures(const std::vector<Ledger>& ledgers, PathFigures& figures);

class PathServers : public TrialServer {
 public:
  static constexpr int kStorePort = 6379;
  // Starts the store (with the shared table), the replicas and the proxy,
  // each waited for until it serves. Throws CellFailure.
  PathServers(const CellConfig& cell, const PathRow& path, const netem::PathTopology& topology,
              const CellFiles& files, const ProcessPlacement& cpus, process::CommandLog& log);
  ~PathServers() override;

  std::string endpoint() const override;
  // The replicas' stats summed, field by field (each a number: calls and
  // CPU time); nullopt if one does not answer.
  std::optional<nlohmann::json> stats() override;
  // The proxy's CPU time so far (its workers included), or nullopt
  // without a proxy.
  std::optional<double> proxy_cpu_us() const;
  void check_alive() override;
  // Stops the proxy, then each replica; the union of their ledgers.
  Ledger stop_and_read_ledger(const CellFiles& files) override;
  netem::ServerControl* control() override { return controls_.front().get(); }
  std::vector<netem::ServerControl*> controls() override;
  std::optional<pid_t> local_pid() const override { return replicas_.front()->local_pid(); }
  void describe(TrialRecord& trial) const override;
  // The causes across replicas (path_causes.h) and the trial's `path`:
  // where each call ran, what the proxy's log says.
  bool explain(const CellConfig& cell, const std::vector<CallRecord>& records, uint64_t extra_executions,
               TrialRecord& trial) override;

  // After stop_and_read_ledger: each replica's ledger (index k-1).
  const std::vector<Ledger>& replica_ledgers() const { return ledgers_; }
  // Replica k's files.
  const CellFiles& replica_files(int k) const { return replica_files_.at(k - 1); }
  // The proxy's log, or "" without a proxy.
  std::string proxy_log_path() const { return proxy_ ? proxy_->log_path() : ""; }
  const PathRow& path() const { return path_; }

 private:
  const PathRow& path_;
  const netem::PathTopology& topology_;
  std::deque<CellFiles> replica_files_;  // ServerUnderTest keeps a reference
  std::unique_ptr<ListeningProcess> store_;
  std::string store_version_;
  std::vector<std::unique_ptr<ServerUnderTest>> replicas_;
  std::unique_ptr<ProxyProcess> proxy_;
  std::vector<std::unique_ptr<netem::ServerControl>> controls_;  // replica k's, index k-1
  std::vector<Ledger> ledgers_;
};

}  // namespace rpclab::harness
