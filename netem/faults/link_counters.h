// What a link carried, counted by a fault backend: plain values, read from
// tc, nft and the kernel's counters (netem_qdisc.h, nft_rules.h) and turned
// into measured loss and duplication.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "netem/spec/fault_spec.h"

namespace rpclab::netem {

// Packets in one direction of the link, cumulative since apply().
struct DirectionCounters {
  uint64_t offered = 0;     // handed to the link by the sender's stack
  uint64_t dropped = 0;     // removed by the fault backend
  uint64_t duplicated = 0;  // extra copies the backend made
  uint64_t delivered = 0;   // arrived at the receiver
  uint64_t bytes_delivered = 0;
};

struct LinkCounters {
  DirectionCounters to_server, to_client;
  std::string source;  // what was read, e.g. "nft rule counters" or "tc -s qdisc + nstat"
  nlohmann::json to_json() const;
};

// What happened on the link over the directions the spec impairs: loss as
// a percentage of what the link carried (offered + copies, since copies can
// be lost too), duplication as a percentage of what the senders offered.
struct MeasuredFaults {
  double loss_pct = 0;
  double dup_pct = 0;
  uint64_t offered = 0;
};
MeasuredFaults measure(const LinkCounters& before, const LinkCounters& after, Direction direction);

}  // namespace rpclab::netem
