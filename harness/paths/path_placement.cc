#include "harness/paths/path_placement.h"

#include <unistd.h>

#include <fmt/format.h>

#include "harness/run/cell_failure.h"
#include "netem/faults/backend_factory.h"

namespace rpclab::harness {
namespace {

// Nothing loads a path's servers: the paths preset asks what the path does
// to calls, not what CPU load does (the load cells have one server).
class NoLoad : public ServerCpuLoad {
 public:
  explicit NoLoad(ProcessPlacement cpus) : cpus_(std::move(cpus)) {}
  void start_measuring(TrialServer&) override {}
  TrialLoad finish() override {
    TrialLoad l;
    l.not_measured = "a path of replicas: the load is not measured";
    l.server_cpus = cpus_.server_cpus;
    l.client_cpus = cpus_.client_cpus;
    return l;
  }

 private:
  ProcessPlacement cpus_;
};

}  // namespace

PathPlacement::PathPlacement(const CellConfig& cell, const PathRow& path, netem::Choice backend,
                             const CellEnvironment& env, process::CommandLog& log)
    : path_(path),
      topology_(netem::PathTopology::create(cell.replicas, log)),
      client_link_(netem::Topology::link_view(topology_->middle(), topology_->client(), log)),
      backend_(std::move(backend)),
      env_(env),
      log_(log) {}

PathPlacement::~PathPlacement() = default;

void PathPlacement::describe(TrialRecord& trial) const { trial.dependability.topology_place = topology_->place(); }

ProcessPlacement PathPlacement::processes(const CellConfig& cell) const {
  return place_processes(cell, env_.bin_dir, env_.caps.cpus, env_.stop);
}

std::unique_ptr<TrialServer> PathPlacement::start_server(const CellConfig& cell, const CellFiles& files,
                                                         const std::string&) {
  return std::make_unique<PathServers>(cell, path_, *topology_, files, processes(cell), log_);
}

Link PathPlacement::impair(const CellConfig& cell, const CellFiles& files) {
  if (backend_.kind == netem::BackendKind::kNone) return Link(backend_, nullptr);
  Link link(backend_, netem::make_backend(backend_.kind, *client_link_, log_));
  link.apply(cell.faults, files);
  return link;
}

std::unique_ptr<ServerCpuLoad> PathPlacement::load(const CellConfig&, const ProcessPlacement& cpus) {
  return std::make_unique<NoLoad>(cpus);
}

ClientEnd PathPlacement::client_end() const {
  return {nullptr, "a path of replicas: the causes across replicas come from the replicas' journals and the "
                   "proxy's log (harness/paths/path_causes.h)"};
}

ClientResults PathPlacement::run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                                         const std::string& endpoint, const CellFiles& files, const TrialPlace&,
                                         std::chrono::seconds limit, const std::function<void()>& tick,
                                         const WaitPoll& poll) {
  return harness::run_clients(cell, extra_args, topology_->client(), endpoint, files, processes(cell), limit, tick,
                              log_, poll);
}

std::unique_ptr<KeptClients> PathPlacement::keep_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                                                 const std::string& endpoint, const std::string& dir) {
  return std::make_unique<KeptClients>(cell, extra_args, topology_->client(), endpoint, dir, processes(cell), log_);
}

std::string path_event_refusal(const CellConfig& cell, const PathRow& path, bool host_netem) {
  for (const netem::FaultEvent& e : cell.faults.events) {
    if (e.kind->target == netem::EventTarget::kLink) continue;
    int replicas = path.proxy || path.client_balances ? cell.replicas : 1;
    if (e.replica > replicas)
      return fmt::format("event {} strikes replica {}: path {} has {} replica(s)", e.kind->name, e.replica, path.name,
                         replicas);
    if (e.kind->target == netem::EventTarget::kPool && !path.proxy)
      return fmt::format("event {}: path {} has no proxy, so no pool to take a replica out of ({})", e.kind->name,
                         path.name,
                         path.client_balances ? "the client balances by itself over the addresses it was given"
                                              : "the client calls one server");
    if (e.kind->target == netem::EventTarget::kPool && path.proxy->pool == PoolControl::kNone)
      return fmt::format("event {}: {}'s pool cannot be changed by rpclab (its row has no PoolControl)",
                         e.kind->name, path.proxy->title);
    if (e.kind->target == netem::EventTarget::kServerLink && !host_netem)
      return fmt::format("event {}: a delay on one replica's link needs netem (tc qdisc netem), and this kernel has "
                         "none (no sch_netem); nftables cannot delay a packet, so the slow replica is not faked",
                         e.kind->name);
  }
  return "";
}

std::string path_cannot_run(const CellConfig& cell, const netem::Capabilities& caps) {
  const PathRow* path = find_path(cell.path);
  if (!path) return fmt::format("unknown path '{}' (known: {})", cell.path, path_names());
  const TransportRow* row = find_transport(cell.transport);
  if (!row) return "unknown transport " + cell.transport;
  if (std::string why = path_refusal(*path, *row, cell.replicas); !why.empty()) return why;
  if (std::string why = path_event_refusal(cell, *path, caps.host_netem); !why.empty()) return why;
  if (!caps.root) return "a path needs root: its client, middle host and replicas are network namespaces (run as root)";
  if (!caps.netns) return "this kernel or container cannot create network namespaces (ip netns add failed)";
  if (path->proxy && ::access(std::string(path->proxy->program).c_str(), X_OK) != 0)
    return fmt::format("{} is not installed ({} is missing): apt-get install {}, or run make, whose tools/deps.sh "
                       "installs it as root",
                       path->proxy->title, path->proxy->program, path->proxy->package);
  if (cell.at_most_once_shared && ::access("/usr/bin/redis-server", X_OK) != 0)
    return "the shared at-most-once table needs Redis (/usr/bin/redis-server is missing): apt-get install "
           "redis-server, or run make, whose tools/deps.sh installs it as root";
  return "";
}

}  // namespace rpclab::harness
