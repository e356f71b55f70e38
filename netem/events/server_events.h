// Server events: done by the harness's ServerControl, which owns the
// process, from the thread that drives the cell, on the server the event
// names (FaultEvent::replica). Named by the server-* rows of event_kinds()
// (netem/config/fault_events.h).
#pragma once

#include <nlohmann/json.hpp>

#include "netem/events/event_targets.h"
#include "netem/spec/fault_event.h"

namespace rpclab::netem {

nlohmann::json apply_server_crash(EventTargets& targets, const FaultEvent& event, EventPhase phase);  // SIGKILL, restart
nlohmann::json apply_server_stall(EventTargets& targets, const FaultEvent& event, EventPhase phase);  // SIGSTOP, SIGCONT
nlohmann::json apply_server_reset(EventTargets& targets, const FaultEvent& event, EventPhase phase);  // ss -K, its namespace
nlohmann::json apply_server_out_of_pool(EventTargets& targets, const FaultEvent& event, EventPhase phase);  // out, in
nlohmann::json apply_server_slow(EventTargets& targets, const FaultEvent& event, EventPhase phase);  // netem delay, none

}  // namespace rpclab::netem
