#include "netem/events/server_events.h"

#include <stdexcept>

namespace rpclab::netem {

namespace {

// The runner checked that the server exists (check_target).
ServerControl& server(EventTargets& t, const FaultEvent& e) { return *t.server(e.replica); }

std::runtime_error refused(const char* what) {
  return std::runtime_error(std::string(what) + ": this server cannot (see the event's row for where it can)");
}

}  // namespace

nlohmann::json ServerControl::reset_connections() { throw refused("a reset of one server's own connections"); }
nlohmann::json ServerControl::leave_pool() { throw refused("taking the server out of a proxy's pool"); }
nlohmann::json ServerControl::join_pool() { throw refused("putting the server back in a proxy's pool"); }
nlohmann::json ServerControl::slow(int64_t) { throw refused("a delay on the server's own link"); }
nlohmann::json ServerControl::unslow() { throw refused("a delay on the server's own link"); }

// SIGKILL: the process gets no chance to write anything (its ledger, a
// reply in flight). Restarted on the same address when for= has passed.
nlohmann::json apply_server_crash(EventTargets& t, const FaultEvent& e, EventPhase phase) {
  return phase == EventPhase::kStart ? server(t, e).kill() : server(t, e).restart();
}

// SIGSTOP: the process holds its sockets and state, and the kernel keeps
// queueing requests for it (UDP datagrams, TCP segments, new connections
// into the accept backlog) until SIGCONT.
nlohmann::json apply_server_stall(EventTargets& t, const FaultEvent& e, EventPhase phase) {
  return phase == EventPhase::kStart ? server(t, e).pause() : server(t, e).resume();
}

// One instant: the kernel closes the server's connections and resets each
// peer (the proxy's, or a balancing client's); the server runs on and
// accepts new ones. Unlike the link's reset, no other server's connection
// is touched.
nlohmann::json apply_server_reset(EventTargets& t, const FaultEvent& e, EventPhase phase) {
  if (phase == EventPhase::kEnd) return {{"result", "nothing to undo"}};  // validate() refuses for= on it
  return server(t, e).reset_connections();
}

nlohmann::json apply_server_out_of_pool(EventTargets& t, const FaultEvent& e, EventPhase phase) {
  return phase == EventPhase::kStart ? server(t, e).leave_pool() : server(t, e).join_pool();
}

nlohmann::json apply_server_slow(EventTargets& t, const FaultEvent& e, EventPhase phase) {
  return phase == EventPhase::kStart ? server(t, e).slow(e.delay_ms) : server(t, e).unslow();
}

}  // namespace rpclab::netem
