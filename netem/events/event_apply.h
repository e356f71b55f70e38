// The apply functions of the event kinds (the table in fault_events.cc).
// Internal: only that table names them.
#pragma once

#include "netem/events/fault_events.h"

namespace rpclab::netem {

nlohmann::json apply_partition(EventTargets& targets, const FaultEvent& event, EventPhase phase);     // link_events.cc
nlohmann::json apply_reset(EventTargets& targets, const FaultEvent& event, EventPhase phase);         // link_events.cc
nlohmann::json apply_server_crash(EventTargets& targets, const FaultEvent& event, EventPhase phase);  // server_events.cc
nlohmann::json apply_server_stall(EventTargets& targets, const FaultEvent& event, EventPhase phase);  // server_events.cc

}  // namespace rpclab::netem
