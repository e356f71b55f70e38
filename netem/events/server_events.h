// Server events: done by the harness's ServerControl, which owns the
// process, from the thread that drives the cell. Named by the server-crash
// and server-stall rows of event_kinds() (netem/config/fault_events.h).
#pragma once

#include <nlohmann/json.hpp>

#include "netem/events/event_targets.h"
#include "netem/spec/fault_event.h"

namespace rpclab::netem {

nlohmann::json apply_server_crash(EventTargets& targets, const FaultEvent& event, EventPhase phase);  // SIGKILL, restart
nlohmann::json apply_server_stall(EventTargets& targets, const FaultEvent& event, EventPhase phase);  // SIGSTOP, SIGCONT

}  // namespace rpclab::netem
