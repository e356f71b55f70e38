#include "netem/topology/path_topology.h"

#include <fmt/format.h>

#include <stdexcept>

#include "process/command_runner.h"

namespace rpclab::netem {
namespace {

constexpr const char* kClientAddress = "198.18.1.2";
constexpr const char* kMiddleClientSide = "198.18.1.1";

std::string middle_address_toward(int k) { return fmt::format("198.18.{}.1", 10 + k); }
std::string replica_address(int k) { return fmt::format("198.18.{}.2", 10 + k); }

// A veth pair made inside `a` with its peer sent straight into `b`: neither
// end ever exists in the host's namespace.
void link_pair(const std::string& a, const std::string& a_if, const std::string& a_addr, const std::string& b,
               const std::string& b_if, const std::string& b_addr, process::CommandLog& log) {
  process::run_checked({"ip", "-n", a, "link", "add", a_if, "type", "veth", "peer", "name", b_if, "netns", b}, log);
  std::string a_mac = mac_of(a, a_if, log), b_mac = mac_of(b, b_if, log);
  configure_end(a, a_if, a_addr, b_addr, b_mac, log);
  configure_end(b, b_if, b_addr, a_addr, a_mac, log);
}

}  // namespace

std::unique_ptr<PathTopology> PathTopology::create(int replicas, process::CommandLog& log) {
  if (replicas < 1 || replicas > kMaxReplicas)
    throw std::invalid_argument(fmt::format("replicas = {}: a path has 1 to {} replicas", replicas, kMaxReplicas));
  std::unique_ptr<PathTopology> t(new PathTopology(log));
  std::string base = new_namespace_base();
  t->client_ = {base + "-cli", kClientAddress, "veth-cli"};
  t->middle_ = {base + "-mid", kMiddleClientSide, "to-cli"};
  for (int k = 1; k <= replicas; ++k) t->replicas_.push_back({fmt::format("{}-r{}", base, k), replica_address(k), "veth-srv"});
  log.comment(fmt::format("path topology {}: client {}, middle host {}, {} replica(s) {}{}", base, kClientAddress,
                          kMiddleClientSide, replicas, replica_address(1), replicas > 1 ? " ..." : ""));
  // From here on the destructor removes whatever was made, if a step fails.
  for (const std::string& ns : t->namespaces()) add_namespace(ns, log);
  link_pair(t->middle_.netns, "to-cli", kMiddleClientSide, t->client_.netns, "veth-cli", kClientAddress, log);
  process::run_checked({"ip", "-n", t->client_.netns, "route", "add", "default", "via", kMiddleClientSide}, log);
  for (int k = 1; k <= replicas; ++k) {
    const Host& r = t->replica(k);
    link_pair(t->middle_.netns, t->middle_ifname(k), middle_address_toward(k), r.netns, r.ifname, r.address, log);
    process::run_checked({"ip", "-n", r.netns, "route", "add", "default", "via", middle_address_toward(k)}, log);
  }
  // The middle host routes between the client and the replicas (a client
  // that balances by itself reaches each replica through it).
  process::run_checked({"sysctl", "-qw", "net.ipv4.ip_forward=1"}, log, t->middle_.netns);
  return t;
}

PathTopology::~PathTopology() {
  for (const auto& ns : namespaces()) {
    try {
      delete_namespace(ns, log_);
    } catch (const std::exception&) {
      // Best effort: the next run's remove_stale_namespaces() finishes the job.
    }
  }
}

std::string PathTopology::middle_ifname(int k) const { return fmt::format("to-r{}", k); }

std::vector<std::string> PathTopology::namespaces() const {
  std::vector<std::string> out;
  if (client_.netns.empty()) return out;
  out = {client_.netns, middle_.netns};
  for (const Host& r : replicas_) out.push_back(r.netns);
  return out;
}

std::string PathTopology::place() const {
  return fmt::format("a path: client, middle host and {} replica(s), each in its own namespace", replicas_.size());
}

}  // namespace rpclab::netem
