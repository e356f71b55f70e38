// The table of timed fault event kinds, and an event read, checked and
// written. One row per kind: its name, what it acts on, its rules, which
// backends can apply it, and the function that does it (declared in
// netem/events/link_events.h or server_events.h), so a new kind is one row
// here and one apply function there. The table sits above the apply
// functions it names; the values it describes (FaultEvent, EventKind) sit
// below both, in netem/spec/fault_event.h.
//
// In a profile: `event = partition at=2s for=2s every=5s jitter=100ms`
// (docs/running.md, "Fault profiles").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "netem/spec/fault_event.h"

namespace rpclab::netem {

const std::vector<EventKind>& event_kinds();
const EventKind* find_event_kind(std::string_view name);
std::string event_kind_names();  // "partition, reset, ..." for messages

// Its own rules; SpecError naming the event.
void validate(const FaultEvent& event);
// Every event's own rules, then no two events of one group that could
// overlap at any repetition (jitter included). Throws SpecError.
void validate_events(const std::vector<FaultEvent>& events);

std::string summary(const FaultEvent& event);  // "partition at 2000ms for 2000ms every 5000ms"

// The JSON of an event in cell and result records (nlohmann's ADL pair:
// nlohmann::json(event), j.get<FaultEvent>()). Reading throws SpecError.
void to_json(nlohmann::json& j, const FaultEvent& event);
void from_json(const nlohmann::json& j, FaultEvent& event);

// The value of a profile's `event =` line: a kind, then key=value pairs
// (at, for, every, jitter, delay; durations in ms or s; target=replica:K,
// the server a server event strikes, 1 unless given). Throws SpecError.
FaultEvent parse_event(const std::string& text);

}  // namespace rpclab::netem
