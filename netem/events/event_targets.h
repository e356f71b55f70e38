// What timed events act on: the link, through the fault backend's tool,
// topology and commands log, and the server process, through the harness's
// ServerControl. The apply functions (link_events.h, server_events.h) take
// these; the EventRunner holds them.
#pragma once

#include <nlohmann/json.hpp>

namespace rpclab::netem {

class FaultBackend;

// The server process, as the harness owns it: what the server events need.
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
};

// What events act on; either may be absent when no event needs it.
struct EventTargets {
  FaultBackend* link = nullptr;     // partition, reset: its tool, topology and commands log
  ServerControl* server = nullptr;  // server-crash, server-stall
};

}  // namespace rpclab::netem
