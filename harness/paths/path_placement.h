// A trial on a path (path_table.h), on this kernel: the path's topology
// (netem/topology/path_topology.h: client, middle host, N replicas, each
// in its own namespace), its servers (path_servers.h), the cell's steady
// faults and link events on the client's link (client <-> middle host),
// server events on replica 1. The same Placement interface as every other
// trial, so the dependability trial runs unchanged.
#pragma once

#include <memory>
#include <string>

#include "harness/paths/path_servers.h"
#include "harness/placement/placement.h"
#include "harness/run/cell_environment.h"
#include "netem/topology/path_topology.h"

namespace rpclab::harness {

class PathPlacement : public Placement {
 public:
  // Makes the path's namespaces (removed with the placement). Throws
  // process::CommandError.
  PathPlacement(const CellConfig& cell, const PathRow& path, netem::Choice backend, const CellEnvironment& env,
                process::CommandLog& log);
  ~PathPlacement() override;

  void describe(TrialRecord& trial) const override;
  ProcessPlacement processes(const CellConfig& cell) const override;
  std::unique_ptr<TrialServer> start_server(const CellConfig& cell, const CellFiles& files,
                                            const std::string& name) override;
  Link impair(const CellConfig& cell, const CellFiles& files) override;
  std::unique_ptr<ServerCpuLoad> load(const CellConfig& cell, const ProcessPlacement& cpus) override;
  ClientEnd client_end() const override;
  ClientResults run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                            const std::string& endpoint, const CellFiles& files, const TrialPlace& place,
                            std::chrono::seconds limit, const std::function<void()>& tick,
                            const WaitPoll& poll) override;
  std::unique_ptr<KeptClients> keep_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                                            const std::string& endpoint, const std::string& dir) override;

 private:
  const PathRow& path_;
  std::unique_ptr<netem::PathTopology> topology_;
  std::unique_ptr<netem::Topology> client_link_;  // a view of client <-> middle host, for the fault backends
  netem::Choice backend_;
  const CellEnvironment& env_;
  process::CommandLog& log_;
};

// Why a cell's server events cannot strike on `path`, or "": an event names
// a replica the path does not have, takes a replica out of a pool where
// no proxy keeps one (or one whose pool rpclab cannot change yet), or
// slows a replica's link on a kernel without netem (`host_netem`).
std::string path_event_refusal(const CellConfig& cell, const PathRow& path, bool host_netem);

// Why a path cell cannot run here (no root for namespaces, a proxy or Redis
// not installed, a path that cannot carry the transport, an event it
// cannot strike), or "".
std::string path_cannot_run(const CellConfig& cell, const netem::Capabilities& caps);

}  // namespace rpclab::harness
