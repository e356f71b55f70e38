// The hosts of a path (docs/paths.md): the client, a middle host where a
// proxy or load balancer runs, and N server replicas, each in its own
// network namespace on its own link. The middle host routes, so a client
// can also reach every replica straight (a client that balances by itself,
// gRPC's round_robin), and a fault or an event can strike one replica's
// link alone. Addresses are in 198.18.0.0/15 (the benchmarking range) and
// exist only inside the namespaces; the host's interfaces are never touched.
//
//   client 198.18.1.2 --veth-- 198.18.1.1 middle 198.18.(10+K).1 --veth-- 198.18.(10+K).2 replica K
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "netem/topology/topology.h"
#include "process/command_log.h"

namespace rpclab::netem {

class PathTopology {
 public:
  static constexpr int kMaxReplicas = 8;

  // Namespaces "rpclab-<pid>-<n>-cli", "-mid", "-r1" ... "-rN" (removed
  // with the topology, as Topology's, and by remove_stale_namespaces()
  // after a killed run), veths with static neighbour entries, IPv6 off on
  // them, routes through the middle host, forwarding on there. Throws
  // process::CommandError, std::invalid_argument for replicas outside 1..8.
  static std::unique_ptr<PathTopology> create(int replicas, process::CommandLog& log);
  ~PathTopology();

  const Host& client() const { return client_; }
  // The middle host as the client sees it (its address on the client's link).
  const Host& middle() const { return middle_; }
  // Replica k (1-based) as the middle host and the client see it.
  const Host& replica(int k) const { return replicas_.at(k - 1); }
  int replica_count() const { return static_cast<int>(replicas_.size()); }
  // The middle host's interface toward replica k (for a fault on that link).
  std::string middle_ifname(int k) const;
  std::vector<std::string> namespaces() const;
  std::string place() const;  // for the trial's record

 private:
  explicit PathTopology(process::CommandLog& log) : log_(log) {}
  process::CommandLog& log_;
  Host client_, middle_;
  std::vector<Host> replicas_;
};

}  // namespace rpclab::netem
