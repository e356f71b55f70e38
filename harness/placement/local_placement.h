// A trial on this kernel (placement.h): its server and clients in network
// namespaces the harness made for it (two-host: two joined by a veth pair;
// loopback: one, on its own 127.0.0.1), or on the host's own loopback
// without root; faults by tc netem or nftables on the veth; CPU hogs
// beside the server.
#pragma once

#include <memory>
#include <string>

#include "harness/run/cell_environment.h"
#include "harness/placement/placement.h"

namespace rpclab::harness {

class LocalPlacement : public Placement {
 public:
  // Makes the hosts of `kind` (namespaces, removed with the placement).
  // `backend`: the fault backend chosen for the cells placed here.
  // `where`: a loopback cell in a namespace of its own, or on the host's.
  LocalPlacement(netem::TopologyKind kind, netem::LoopbackPlace where, netem::Choice backend, const CellEnvironment& env,
                 process::CommandLog& log);
  ~LocalPlacement() override;

  void describe(TrialRecord& trial) const override;
  ProcessPlacement processes(const CellConfig& cell) const override;
  std::unique_ptr<TrialServer> start_server(const CellConfig& cell, const CellFiles& files,
                                            const std::string& name) override;
  Link impair(const CellConfig& cell, const CellFiles& files) override;
  std::unique_ptr<ServerCpuLoad> load(const CellConfig& cell, const ProcessPlacement& cpus) override;
  ClientEnd client_end() const override;
  const netem::Host* server_end() const override { return &topology_->server(); }
  ClientResults run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                            const std::string& endpoint, const CellFiles& files, const TrialPlace& place,
                            std::chrono::seconds limit, const std::function<void()>& tick,
                            const WaitPoll& poll) override;
  std::unique_ptr<KeptClients> keep_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                                            const std::string& endpoint, const std::string& dir) override;

 private:
  std::unique_ptr<netem::Topology> topology_;
  netem::Choice backend_;
  std::string host_loopback_why_;  // why a loopback cell is on the host's lo ("" in a namespace)
  const CellEnvironment& env_;
  process::CommandLog& log_;
};

// The placement on this kernel for one dependability trial of `cell`, with
// `backend` for its faults: loopback cells in a namespace of their own
// where rpclab may make one.
std::unique_ptr<LocalPlacement> place_here(const CellConfig& cell, const netem::Choice& backend,
                                           const CellEnvironment& env, process::CommandLog& log);

// Why a cell cannot run on this machine (no root or no namespaces for the
// two-host topology or faults), or "" when it can.
std::string cannot_run_here(const CellConfig& cell, const netem::Capabilities& caps);

// Why this machine lacks the fault backend a cell names explicitly
// (--faults-backend netem on a kernel without sch_netem), or "": the run
// checks every cell before the first one. A cell that would be skipped
// here anyway (no root), or that lets `auto` choose, has nothing to check.
std::string missing_backend(const CellConfig& cell, const netem::Capabilities& caps);

// Why a loopback cell runs on the host's own lo, or "" when it gets a
// network namespace of its own (client and server on its 127.0.0.1), where
// the wire capture can put its rules on that namespace's lo: rpclab puts
// none on the host's interfaces.
std::string why_host_loopback(const netem::Capabilities& caps);

}  // namespace rpclab::harness
