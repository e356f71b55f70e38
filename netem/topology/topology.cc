#include "netem/topology/topology.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "process/command_runner.h"

namespace rpclab::netem {

namespace {

constexpr const char* kServerAddress = "198.18.0.1";
constexpr const char* kClientAddress = "198.18.0.2";
constexpr const char* kServerIf = "veth-srv";
constexpr const char* kClientIf = "veth-cli";
constexpr const char* kPrefixLength = "/30";

std::atomic<int> g_counter{0};

}  // namespace

// A namespace of ours, its lo up (a new namespace's is down).
void add_namespace(const std::string& ns, process::CommandLog& log) {
  process::run_checked({"ip", "netns", "add", ns}, log);
  process::run_checked({"ip", "-n", ns, "link", "set", "lo", "up"}, log);
}

// "rpclab-<pid>-<n>": remove_stale_namespaces() reads the owner from it.
std::string new_namespace_base() {
  return std::string(kNamespacePrefix) + std::to_string(::getpid()) + "-" + std::to_string(g_counter++);
}

void delete_namespace(const std::string& ns, process::CommandLog& log) {
  // Anything still inside (a server, a hog) dies first, so the namespace
  // and its veth really go away when deleted.
  process::CommandResult pids = process::run({"ip", "netns", "pids", ns}, log);
  std::istringstream in(pids.out);
  for (pid_t pid; in >> pid;)
    if (pid > 1 && pid != ::getpid()) ::kill(pid, SIGKILL);
  process::run({"ip", "netns", "delete", ns}, log);
}

namespace {

// "rpclab-<pid>-..." -> pid, or 0 when the name is not ours in that form.
pid_t owner_of(const std::string& ns) {
  const std::string prefix = kNamespacePrefix;
  if (ns.compare(0, prefix.size(), prefix) != 0) return 0;
  char* end = nullptr;
  long pid = std::strtol(ns.c_str() + prefix.size(), &end, 10);
  return (pid > 0 && *end == '-') ? static_cast<pid_t>(pid) : 0;
}

bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

// One end of the link, inside its namespace: address, no IPv6 (no router
// solicitations or DAD crossing the impaired link), a static neighbour entry
// for the peer so no ARP is needed, then up.
void configure_end(const std::string& ns, const std::string& ifname, const std::string& address,
                   const std::string& peer_address, const std::string& peer_mac, process::CommandLog& log) {
  if (::access("/proc/sys/net/ipv6", F_OK) == 0)  // a kernel without IPv6 (the UML guest's) has none to turn off
    process::run_checked({"sysctl", "-qw", "net.ipv6.conf." + ifname + ".disable_ipv6=1"}, log, ns);
  process::run_checked({"ip", "-n", ns, "addr", "add", address + kPrefixLength, "dev", ifname}, log);
  process::run_checked({"ip", "-n", ns, "link", "set", ifname, "up"}, log);
  process::run_checked({"ip", "-n", ns, "neigh", "replace", peer_address, "lladdr", peer_mac, "dev", ifname,
               "nud", "permanent"}, log);
}

std::string mac_of(const std::string& ns, const std::string& ifname, process::CommandLog& log) {
  std::string out = process::run_checked({"ip", "-n", ns, "-br", "link", "show", "dev", ifname}, log).out;
  std::istringstream in(out);
  std::string name, state, mac;
  in >> name >> state >> mac;
  return mac;
}

std::string topology_name(TopologyKind kind) {
  return kind == TopologyKind::kLoopback ? "loopback" : "two-host";
}

std::optional<TopologyKind> parse_topology(const std::string& name) {
  if (name == "loopback") return TopologyKind::kLoopback;
  if (name == "two-host") return TopologyKind::kTwoHost;
  return std::nullopt;
}

std::unique_ptr<Topology> Topology::create(TopologyKind kind, process::CommandLog& log, LoopbackPlace place) {
  std::unique_ptr<Topology> t(new Topology(kind, log));
  if (kind == TopologyKind::kLoopback && place == LoopbackPlace::kHost) {
    t->server_ = {"", "127.0.0.1", ""};
    t->client_ = {"", "127.0.0.1", ""};
    return t;
  }
  std::string base = new_namespace_base();
  if (kind == TopologyKind::kLoopback) {
    // One namespace for both ends: a datagram between them passes its lo's
    // egress hook once and its ingress hook once, as on a veth.
    t->server_ = t->client_ = {base + "-lo", "127.0.0.1", "lo"};
    log.comment("loopback in a private namespace " + t->server_.netns + ": client and server on 127.0.0.1");
    add_namespace(t->server_.netns, log);
    return t;
  }
  t->server_ = {base + "-srv", kServerAddress, kServerIf};
  t->client_ = {base + "-cli", kClientAddress, kClientIf};
  log.comment("two-host topology " + base + ": server " + kServerAddress + ", client " + kClientAddress);
  // From here on the destructor removes whatever was made, if a step fails.
  add_namespace(t->server_.netns, log);
  add_namespace(t->client_.netns, log);
  // Made inside the server namespace with its peer sent straight to the
  // client's: neither end ever exists in the host's namespace.
  process::run_checked({"ip", "-n", t->server_.netns, "link", "add", kServerIf, "type", "veth", "peer", "name", kClientIf,
               "netns", t->client_.netns}, log);
  std::string server_mac = mac_of(t->server_.netns, kServerIf, log);
  std::string client_mac = mac_of(t->client_.netns, kClientIf, log);
  configure_end(t->server_.netns, kServerIf, kServerAddress, kClientAddress, client_mac, log);
  configure_end(t->client_.netns, kClientIf, kClientAddress, kServerAddress, server_mac, log);
  return t;
}

std::unique_ptr<Topology> Topology::link_view(const Host& server, const Host& client, process::CommandLog& log) {
  std::unique_ptr<Topology> t(new Topology(TopologyKind::kTwoHost, log));
  t->server_ = server;
  t->client_ = client;
  t->owns_namespaces_ = false;
  return t;
}

Topology::~Topology() {
  if (!owns_namespaces_) return;
  for (const auto& ns : namespaces()) {
    try {
      delete_namespace(ns, log_);
    } catch (const std::exception&) {
      // Best effort: the next run's remove_stale_namespaces() finishes the job.
    }
  }
}

std::vector<std::string> Topology::namespaces() const {
  if (server_.netns.empty()) return {};
  if (server_.netns == client_.netns) return {server_.netns};
  return {server_.netns, client_.netns};
}

std::string Topology::place() const {
  if (kind_ == TopologyKind::kTwoHost) return "two namespaces joined by a veth pair";
  return server_.netns.empty() ? "host loopback" : "loopback in a private namespace";
}

std::vector<std::string> list_our_namespaces() {
  // /run/netns is where `ip netns add` mounts them; reading it needs no tool.
  std::vector<std::string> out;
  DIR* d = ::opendir("/run/netns");
  if (!d) return out;
  const std::string prefix = kNamespacePrefix;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) == 0) out.push_back(name);
  }
  ::closedir(d);
  return out;
}

bool owner_alive(const std::string& ns) {
  pid_t owner = owner_of(ns);
  return owner != 0 && process_alive(owner);
}

std::vector<std::string> remove_stale_namespaces(process::CommandLog& log) {
  std::vector<std::string> removed;
  for (const auto& ns : list_our_namespaces()) {
    if (owner_alive(ns)) continue;
    pid_t owner = owner_of(ns);
    log.comment("removing " + ns + ": its owner " + std::to_string(owner) + " is gone");
    delete_namespace(ns, log);
    removed.push_back(ns);
  }
  return removed;
}

std::vector<std::string> remove_all_namespaces(process::CommandLog& log) {
  std::vector<std::string> removed = list_our_namespaces();
  for (const auto& ns : removed) delete_namespace(ns, log);
  return removed;
}

}  // namespace rpclab::netem
