// One cell of an experiment matrix: every setting that defines it. Its JSON
// form is its identity (--resume matches on it) and the way a cell travels
// into a user-mode-linux guest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "netem/spec/fault_spec.h"
#include "transport/transport.h"
#include "netem/topology/topology.h"

namespace rpclab::harness {

// A client retry policy as a matrix axis: none, library, or app with its K
// ("app:3"). Parsed from --retry-policy; its name is the axis value.
struct RetryChoice {
  RetryPolicy policy = RetryPolicy::kNone;
  int app_retries = 0;  // K, with app

  std::string name() const;  // "none" | "library" | "app:3"
  // Throws std::invalid_argument saying what is accepted.
  static RetryChoice parse(const std::string& text);
  bool operator==(const RetryChoice& o) const { return policy == o.policy && app_retries == o.app_retries; }
  // From a cell's JSON (CellConfig::to_json), the one place that knows its keys.
  static RetryChoice of_cell(const nlohmann::json& cell);
};

struct CellConfig {
  std::string experiment;                 // "dependability" | "speed" | "nfs"
  std::string block;                      // the preset's table this cell belongs to ("load", "faults", ...)
  std::string transport;
  netem::TopologyKind topology = netem::TopologyKind::kLoopback;
  ConnectMode connect = ConnectMode::kPersistent;
  int clients = 1;
  uint64_t calls_per_client = 1000;

  // Dependability axes.
  int hogs = 0;                           // CPU-bound processes on the server's CPU
  netem::FaultSpec faults;
  std::string faults_backend = "auto";    // auto | netem | uml-netem | nftables
  std::optional<int> timeout_ms;          // unset = the library default
  RetryChoice retry;                      // what the clients do after a failed call
  bool at_most_once = false;              // the server answers repeats from its table (all transports)
  // With at_most_once: the table every replica shares, in a Redis started
  // for the trial (rpclab-server --at-most-once-shared), not each server's own.
  bool at_most_once_shared = false;
  // The path the calls take (harness/paths/path_table.h): "" is a client
  // straight to one server, every cell before the axis; else a row's name
  // ("haproxy-retry"), its proxy in a middle host before `replicas`
  // servers, each in its own namespace (netem/topology/path_topology.h).
  std::string path;
  int replicas = 1;
  // Clients make no new call after this (a cell with timed events runs for
  // a fixed time; calls_per_client is then a cap). Unset: until the calls.
  std::optional<int64_t> duration_ms;
  bool pin = true;                        // server+hogs on CPU 0, clients on the rest
  // The transport's settings (src/transport/settings.h: the retransmit
  // interval, the reply cache, TCP_NODELAY, ...), one block for both
  // sides: each program gets those its row takes on its side.
  TransportSettings settings;

  // NFS axes (harness/nfs/): the server row, and its reply cache where it
  // can be switched off; `transport` is the NFS version and transport
  // ("nfs3-udp"), `op` the workload's operations per step ("mkdir,rmdir"),
  // calls_per_client its steps.
  std::string server;                     // nfs-ganesha, knfsd; "" in other experiments
  std::optional<bool> reply_cache;
  // The restart event (harness/nfs/restart_event.h): the server restarted
  // at client 1's step N, between that call's execution and its
  // retransmission. Unset: none.
  std::optional<uint32_t> restart_at_step;
  // The NFS client row (harness/nfs/nfs_client.h): "" is the first row,
  // rpclab's own client (the cells before the axis keep their identity);
  // "kernel" is Linux's client in the guest.
  std::string nfs_client;

  // Speed axes.
  std::string op = "echo";                // what each call is (client_run.h's names): echo, or Allman's four
  size_t size = 0;                        // ECHO bytes, or N doubles for Allman's operations
  int trials = 1;
  uint64_t warmup = 0;
  // Open loop (rpclab-client --rate): each client's calls a second, on a
  // fixed schedule, latency taken from when each call was due. Unset:
  // closed loop, and the cell keeps the identity it had before the axis.
  std::optional<double> rate_per_s;

  uint64_t total_calls() const { return calls_per_client * static_cast<uint64_t>(clients); }
  nlohmann::json to_json() const;
  static CellConfig from_json(const nlohmann::json& j);  // throws std::invalid_argument
  std::string id() const { return to_json().dump(); }
  std::string label() const;  // short human name: "sunrpc-udp two-host load 5 retry 20ms"
  // Host and port left for the runner to fill; only the settings the
  // transport's row takes on that side are set.
  ClientOptions client_options() const;
  ServerOptions server_options() const;
};

}  // namespace rpclab::harness
