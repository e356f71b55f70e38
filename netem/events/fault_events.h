// Timed fault events, beside the steady link faults: a partition, a reset
// of every TCP connection, a server crash and restart, a server stall. Each
// starts at a time relative to the clients' start, once or every P ms, and
// lasts D ms. One row per kind (event_kinds() in fault_events.cc): its name,
// what it acts on, its rules, which backends can apply it, and the function
// that does it, so a new kind is one row and one apply function.
//
// In a profile: `event = partition at=2s for=2s every=5s jitter=100ms`
// (docs/running.md, "Fault profiles").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::netem {

struct EventTargets;  // event_runner.h
struct FaultEvent;

enum class EventPhase { kStart, kEnd };
std::string_view event_phase_name(EventPhase phase);  // "start" | "end"

// What an event acts on: the link (applied by the fault backend's tool in
// the hosts' namespaces) or the server process (applied by the harness,
// which owns it, through ServerControl).
enum class EventTarget { kLink, kServer };

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
};

const std::vector<EventKind>& event_kinds();
const EventKind* find_event_kind(std::string_view name);
std::string event_kind_names();  // "partition, reset, ..." for messages

inline constexpr int64_t kMaxEventMs = 24LL * 3600 * 1000;  // no time in an event beyond a day

struct FaultEvent {
  const EventKind* kind = nullptr;
  int64_t at_ms = 0;                // its first start, from the clients' start
  int64_t for_ms = 0;               // how long each occurrence lasts; 0: one instant (reset)
  std::optional<int64_t> every_ms;  // repeated with this period; unset: once
  int64_t jitter_ms = 0;            // each start is later by a seeded draw from 0..jitter_ms

  void validate() const;  // its own rules; SpecError naming the event
  // When its first occurrence has surely ended (latest jitter): a cell must
  // last at least this long for the event to happen whole.
  int64_t first_end_ms() const { return at_ms + jitter_ms + for_ms; }
  nlohmann::json to_json() const;
  static FaultEvent from_json(const nlohmann::json& j);  // SpecError
  std::string summary() const;  // "partition at 2000ms for 2000ms every 5000ms"
};

// The value of a profile's `event =` line: a kind, then key=value pairs
// (at, for, every, jitter; durations in ms or s). Throws SpecError.
FaultEvent parse_event(const std::string& text);

// Every event's own rules, then no two events of one group that could
// overlap at any repetition (jitter included). Throws SpecError.
void validate_events(const std::vector<FaultEvent>& events);

}  // namespace rpclab::netem
