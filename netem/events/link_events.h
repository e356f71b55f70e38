// Link events, applied with the fault backend's own tool in both hosts'
// namespaces (nft for the nftables backend, tc for netem), every command in
// the commands log. The rules themselves: link_event_rules.h. Named by the
// partition and reset rows of event_kinds() (netem/config/fault_events.h).
#pragma once

#include <nlohmann/json.hpp>

#include "netem/events/event_targets.h"
#include "netem/spec/fault_event.h"
#include "netem/spec/fault_spec.h"

namespace rpclab::netem {

// Every packet either way dropped at the receiving end; the end reports how
// many each end dropped.
nlohmann::json apply_partition(EventTargets& targets, const FaultEvent& event, EventPhase phase);
// At the start, every TCP connection between the hosts reset (ss -K); with
// for=, every TCP segment answered with a reset until the end.
nlohmann::json apply_reset(EventTargets& targets, const FaultEvent& event, EventPhase phase);

// Every packet going `toward` one end (kToServer or kToClient; kBoth throws
// std::invalid_argument) dropped at that end's ingress, the other way open:
// at kStart its table or ingress qdisc made, at kEnd what it dropped
// (`dropped_to_client`) read and it removed. Not a timed event: the
// harness calls it when its own condition is met (harness/nfs/restart_event.h,
// replies dropped while the server restarts).
nlohmann::json apply_one_way_drop(FaultBackend& backend, Direction toward, EventPhase phase);

}  // namespace rpclab::netem
