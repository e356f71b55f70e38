#include "harness/placement/local_placement.h"

#include <fmt/format.h>

#include "harness/run/cell_failure.h"
#include "netem/config/backend_choice.h"
#include "netem/faults/backend_factory.h"
#include "netem/spec/fault_fields.h"
#include "netem/spec/spec_error.h"
#include "netem/load/load_meter.h"
#include "netem/load/server_load.h"

namespace rpclab::harness {
namespace {

// Hogs on the server's CPU, settled before the clients start, and the
// meter of what that CPU and the server's threads ran while they ran.
class LocalLoad : public ServerCpuLoad {
 public:
  LocalLoad(const CellConfig& cell, const ProcessPlacement& cpus, process::CommandLog& log)
      : hogs_count_(cell.hogs), cpus_(cpus), hogs_(cell.hogs, cpus.server_cpus, log) {}

  void start_measuring(TrialServer& server) override {
    meter_.emplace(server.local_pid().value_or(0), cpus_.server_cpus, cpus_.client_cpus);
  }
  double settle_s() const override { return hogs_.settle_s(); }
  TrialLoad finish() override {
    TrialLoad l = meter_ ? TrialLoad::measured(meter_->finish(hogs_count_)) : TrialLoad{};
    hogs_.stop();
    l.settle_s = hogs_.settle_s();
    l.settled = hogs_.settled();
    l.server_cpus = cpus_.server_cpus;
    l.client_cpus = cpus_.client_cpus;
    return l;
  }

 private:
  int hogs_count_;
  ProcessPlacement cpus_;
  netem::ServerLoad hogs_;
  std::optional<netem::LoadMeter> meter_;
};

}  // namespace

LocalPlacement::LocalPlacement(netem::TopologyKind kind, netem::LoopbackPlace where, netem::Choice backend,
                               const CellEnvironment& env, process::CommandLog& log)
    : topology_(netem::Topology::create(kind, log, where)),
      backend_(std::move(backend)),
      host_loopback_why_(where == netem::LoopbackPlace::kHost ? why_host_loopback(env.caps) : ""),
      env_(env),
      log_(log) {}

LocalPlacement::~LocalPlacement() = default;

void LocalPlacement::describe(TrialRecord& trial) const { trial.dependability.topology_place = topology_->place(); }

ProcessPlacement LocalPlacement::processes(const CellConfig& cell) const {
  return place_processes(cell, env_.bin_dir, env_.caps.cpus, env_.stop);
}

std::unique_ptr<TrialServer> LocalPlacement::start_server(const CellConfig& cell, const CellFiles& files,
                                                          const std::string&) {
  return std::make_unique<ServerUnderTest>(cell, topology_->server(), files, processes(cell), log_);
}

Link LocalPlacement::impair(const CellConfig& cell, const CellFiles& files) {
  if (backend_.kind == netem::BackendKind::kNone) return Link(backend_, nullptr);
  Link link(backend_, netem::make_backend(backend_.kind, *topology_, log_));
  link.apply(cell.faults, files);
  return link;
}

std::unique_ptr<ServerCpuLoad> LocalPlacement::load(const CellConfig& cell, const ProcessPlacement& cpus) {
  return std::make_unique<LocalLoad>(cell, cpus, log_);
}

ClientEnd LocalPlacement::client_end() const {
  const netem::Host& client = topology_->client();
  if (!client.netns.empty()) return {&client, ""};
  return {&client, "host loopback (" + host_loopback_why_ + ")"};
}

ClientResults LocalPlacement::run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                                          const std::string& endpoint, const CellFiles& files, const TrialPlace&,
                                          std::chrono::seconds limit, const std::function<void()>& tick,
                                          const WaitPoll& poll) {
  return harness::run_clients(cell, extra_args, topology_->client(), endpoint, files, processes(cell), limit, tick,
                              log_, poll);
}

std::unique_ptr<KeptClients> LocalPlacement::keep_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                                                 const std::string& endpoint, const std::string& dir) {
  return std::make_unique<KeptClients>(cell, extra_args, topology_->client(), endpoint, dir, processes(cell), log_);
}

std::unique_ptr<LocalPlacement> place_here(const CellConfig& cell, const netem::Choice& backend,
                                           const CellEnvironment& env, process::CommandLog& log) {
  auto where = why_host_loopback(env.caps).empty() ? netem::LoopbackPlace::kPrivateNamespace
                                                   : netem::LoopbackPlace::kHost;
  return std::make_unique<LocalPlacement>(cell.topology, where, backend, env, log);
}

std::string cannot_run_here(const CellConfig& cell, const netem::Capabilities& caps) {
  // A cell without a path has one server, its own link and no proxy.
  for (const netem::FaultEvent& e : cell.faults.events) {
    if (e.replica != 1)
      return fmt::format("event {} strikes replica {}: a cell without a path has one server (give --paths and "
                         "--replicas)", e.kind->name, e.replica);
    if (e.kind->target == netem::EventTarget::kPool || e.kind->target == netem::EventTarget::kServerLink)
      return fmt::format("event {} acts on a replica of a path (its place in a proxy's pool, its own link): give "
                         "--paths", e.kind->name);
  }
  if (cell.topology == netem::TopologyKind::kTwoHost && !caps.root)
    return netem::is_empty(cell.faults)
               ? "the two-host topology needs root for network namespaces (run as root, or --topology loopback)"
               : "network faults need root: they live on a link between two network namespaces (run as root)";
  if (cell.topology == netem::TopologyKind::kTwoHost && !caps.netns)
    return "this kernel or container cannot create network namespaces (ip netns add failed)";
  return "";
}

std::string missing_backend(const CellConfig& cell, const netem::Capabilities& caps) {
  if (cell.faults_backend == "auto" || netem::is_empty(cell.faults) || !cannot_run_here(cell, caps).empty()) return "";
  try {
    netem::choose_backend(cell.faults_backend, cell.faults, caps);
  } catch (const netem::SpecError& e) {
    return e.what();
  }
  return "";
}

std::string why_host_loopback(const netem::Capabilities& caps) {
  if (!caps.root) return "not root, so no namespace of its own";
  if (!caps.netns) return "this kernel or container cannot create network namespaces";
  return "";
}

}  // namespace rpclab::harness
