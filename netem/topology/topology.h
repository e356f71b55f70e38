// Where the client and server run: Levy's "same machine" and "different
// machine". two-host is two network namespaces joined by a veth pair, with
// addresses (198.18.0.0/30, the benchmarking range) that exist only inside
// them; the host's own interfaces are never touched.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "process/command_log.h"

namespace rpclab::netem {

enum class TopologyKind { kLoopback, kTwoHost };
std::string topology_name(TopologyKind kind);                  // "loopback" | "two-host"
std::optional<TopologyKind> parse_topology(const std::string& name);

// Whose 127.0.0.1 a loopback topology uses: the host's own (no root needed;
// nothing may be put on the host's lo) or that of one namespace made for
// the cell, whose lo can carry the wire capture's rules.
enum class LoopbackPlace { kHost, kPrivateNamespace };

inline constexpr const char* kNamespacePrefix = "rpclab-";

struct Host {
  std::string netns;    // empty: the host's own network namespace
  std::string address;  // where the other side reaches this host
  std::string ifname;   // its end of the link: "lo" in a private loopback namespace; empty on the host's lo
};

class Topology {
 public:
  // loopback: both ends on 127.0.0.1 of the host's namespace (no root
  // needed), or with kPrivateNamespace of one namespace "rpclab-<pid>-<n>-lo"
  // holding client and server, its lo up.
  // two-host: namespaces "rpclab-<pid>-<n>-srv" and "...-cli" (pid = this
  // process, n = a per-process counter), veth "veth-srv"/"veth-cli" inside
  // them, static neighbour entries (no ARP on an impaired link), IPv6 off on
  // the veths so only our IPv4 traffic crosses. Throws process::CommandError.
  static std::unique_ptr<Topology> create(TopologyKind kind, process::CommandLog& log,
                                          LoopbackPlace place = LoopbackPlace::kHost);
  // One link of a larger topology (path_topology.h) as a two-host
  // topology, for the fault backends and link events: its ends' namespaces
  // belong to the larger one, which removes them; this view removes nothing.
  static std::unique_ptr<Topology> link_view(const Host& server, const Host& client, process::CommandLog& log);
  ~Topology();  // deletes the namespaces, killing anything still inside them (not a link view's)

  TopologyKind kind() const { return kind_; }
  const Host& server() const { return server_; }
  const Host& client() const { return client_; }
  std::vector<std::string> namespaces() const;  // each once
  // Where the cell ran, for its record: "host loopback", "loopback in a
  // private namespace" or "two namespaces joined by a veth pair".
  std::string place() const;

 private:
  Topology(TopologyKind kind, process::CommandLog& log) : kind_(kind), log_(log) {}
  TopologyKind kind_;
  process::CommandLog& log_;
  Host server_, client_;
  bool owns_namespaces_ = true;
};

// The pieces a topology is made of, shared with path_topology.h.
// "rpclab-<pid>-<n>": a fresh base name for one topology's namespaces.
std::string new_namespace_base();
// A namespace of ours, its lo up (a new namespace's is down).
void add_namespace(const std::string& ns, process::CommandLog& log);
// Kills what is still inside, then deletes it.
void delete_namespace(const std::string& ns, process::CommandLog& log);
// One end of a veth link inside `ns`: `address`/`prefix`, IPv6 off, up, a
// static neighbour entry for the peer (no ARP over an impaired link).
void configure_end(const std::string& ns, const std::string& ifname, const std::string& address,
                   const std::string& peer_address, const std::string& peer_mac, process::CommandLog& log);
// The MAC address of `ifname` in `ns`.
std::string mac_of(const std::string& ns, const std::string& ifname, process::CommandLog& log);

// Namespaces named rpclab-<pid>-... whose <pid> is no longer alive: kill the
// processes inside and delete them. Returns the names removed. Every run
// calls this first, so a run killed with SIGKILL is cleaned by the next.
std::vector<std::string> remove_stale_namespaces(process::CommandLog& log);
// Every rpclab-* namespace, live owner or not (`rpclab clean-net --all`).
std::vector<std::string> remove_all_namespaces(process::CommandLog& log);
std::vector<std::string> list_our_namespaces();
// The process that made `ns` (from its name) is still running: a run in
// progress, whose namespaces only `--all` removes.
bool owner_alive(const std::string& ns);

}  // namespace rpclab::netem
