#include "netem/events/server_events.h"

namespace rpclab::netem {

// SIGKILL: the process gets no chance to write anything (its ledger, a
// reply in flight). Restarted on the same address when for= has passed.
nlohmann::json apply_server_crash(EventTargets& t, const FaultEvent&, EventPhase phase) {
  return phase == EventPhase::kStart ? t.server->kill() : t.server->restart();
}

// SIGSTOP: the process holds its sockets and state, and the kernel keeps
// queueing requests for it (UDP datagrams, TCP segments, new connections
// into the accept backlog) until SIGCONT.
nlohmann::json apply_server_stall(EventTargets& t, const FaultEvent&, EventPhase phase) {
  return phase == EventPhase::kStart ? t.server->pause() : t.server->resume();
}

}  // namespace rpclab::netem
