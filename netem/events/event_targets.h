// What timed events act on: the link, through the fault backend's tool,
// topology and commands log, and each server (a path's replicas), through
// the harness's ServerControl. The apply functions (link_events.h, server_events.h) take
// these; the EventRunner holds them.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::netem {

class FaultBackend;

// One server, as the harness owns it: what the server events need.
// Each call returns what it did, as JSON for the record, logs the signal or
// the restarted command to the commands log (a restart through process::ChildProcess
// does so by itself), and throws std::runtime_error when it could not (the
// cell fails; its files stay).
class ServerControl {
 public:
  virtual ~ServerControl() = default;
  virtual nlohmann::json kill() = 0;     // SIGKILL, and reap it
  virtual nlohmann::json restart() = 0;  // start it again on the same address; returns once it serves
  virtual nlohmann::json pause() = 0;    // SIGSTOP
  virtual nlohmann::json resume() = 0;   // SIGCONT
  // `ss -K` on its TCP connections in its own namespace: what the kernel
  // closed. Only a server in a namespace of its own has connections that
  // are its alone.
  virtual nlohmann::json reset_connections();
  // Out of the pool of the proxy in front of it, and back (a path with a
  // proxy only).
  virtual nlohmann::json leave_pool();
  virtual nlohmann::json join_pool();
  // `delay_ms` more on every packet it sends, on its own link, and back.
  virtual nlohmann::json slow(int64_t delay_ms);
  virtual nlohmann::json unslow();
};

// What events act on; either may be absent when no event needs it.
struct EventTargets {
  FaultBackend* link = nullptr;         // partition, reset: its tool, topology and commands log
  std::vector<ServerControl*> servers;  // server events: replica K is servers[K-1]; a trial without a path has one

  ServerControl* server(int replica) const {
    return replica >= 1 && replica <= static_cast<int>(servers.size()) ? servers[replica - 1] : nullptr;
  }
};

}  // namespace rpclab::netem
