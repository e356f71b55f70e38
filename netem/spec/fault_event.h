// A timed fault event as a value, beside the steady link faults: a
// partition, a reset of every TCP connection, a server crash and restart,
// a server stall. Each starts at a time relative to the clients' start,
// once or every P ms, and lasts D ms.
//
// The kinds are rows of one table (event_kinds(), netem/config/fault_events.h):
// its name, what it acts on, its rules, which backends can apply it, and the
// function that does it (netem/events/), so a new kind is one row and one
// apply function. A FaultEvent points at its row; this header holds only the
// row's shape, so the values sit below what applies them and the table sits
// above both.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rpclab::netem {

// What an apply function acts on (netem/events/event_targets.h). Named
// here only in EventApplyFn's signature: nothing at this level calls an
// apply function; the table above binds them and the runner calls them.
struct EventTargets;
struct FaultEvent;

enum class EventPhase { kStart, kEnd };
constexpr std::string_view event_phase_name(EventPhase phase) {  // "start" | "end"
  return phase == EventPhase::kStart ? "start" : "end";
}

// What an event acts on: the link (applied by the fault backend's tool in
// the hosts' namespaces), or one server, through the harness's
// ServerControl (netem/events/event_targets.h): its process or its TCP
// connections (kServer), its entry in the pool of the proxy in front of
// it (kPool: only a path with a proxy has one), or its own link (kServerLink:
// a path's replica has one link of its own).
enum class EventTarget { kLink, kServer, kPool, kServerLink };

// Does one phase of an event and says what it did (JSON for the record).
// Called from the thread that drives the cell, never from a helper thread.
using EventApplyFn = nlohmann::json (*)(EventTargets& targets, const FaultEvent& event, EventPhase phase);

struct EventKind {
  const char* name;     // "partition": in profiles, JSON and summaries
  EventTarget target;
  bool needs_duration;  // for= is required; without it (reset only) the event is one instant
  const char* group;    // events of one group must never overlap (both act on the same thing)
  unsigned backends;    // link events: backend_bit()s of the backends that can apply it
  const char* what;     // one line for --help and messages
  EventApplyFn apply;
  // Backends (backend_bit()s) that apply it only with for= (netem's reset
  // is an iptables rule that lasts; it has no instant `ss -K`).
  unsigned needs_duration_on = 0;
};

inline constexpr int64_t kMaxEventMs = 24LL * 3600 * 1000;  // no time in an event beyond a day

// Read, checked, written and summed up by netem/config/fault_events.h.
struct FaultEvent {
  const EventKind* kind = nullptr;  // a row of event_kinds()
  int64_t at_ms = 0;                // its first start, from the clients' start
  int64_t for_ms = 0;               // how long each occurrence lasts; 0: one instant (reset)
  std::optional<int64_t> every_ms;  // repeated with this period; unset: once
  int64_t jitter_ms = 0;            // each start is later by a seeded draw from 0..jitter_ms
  // The server it strikes (target=replica:K): replica K of a path. 1, the
  // default, is also the only server of a trial without a path, so a spec
  // that names none means what it meant before replicas existed.
  int replica = 1;
  int64_t delay_ms = 0;             // a slow replica's added delay (delay=); 0 for every other kind

  // When its first occurrence has surely ended (latest jitter): a cell must
  // last at least this long for the event to happen whole.
  int64_t first_end_ms() const { return at_ms + jitter_ms + for_ms; }
};

}  // namespace rpclab::netem
