// One trial's join in the shapes the statistics over trials (TrialCounts)
// and the episode detector (ErrorCall) read, made from the same client
// records and ledger that classify() reads, by the same class rules.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ledger.h"
#include "harness/dependability/classify.h"
#include "harness/dependability/episodes.h"
#include "harness/record/trial_counts.h"

namespace rpclab::harness {

struct TrialJoin {
  TrialCounts counts;
  std::vector<ErrorCall> errors;  // times from the earliest client's first call
};

// A call record holds each call's latency and the first call's start
// (CLOCK_REALTIME), not each call's start. The calls run back to back, so
// call i ends at that start plus the latencies of calls 0..i plus i shares
// of the loop's own time (wall_ns less the latencies, spread evenly). The
// estimate is off by at most that own time: 0.3-1.3 us a call in real
// records, so at worst a few ms by the end of a 10,000-call client, and far
// less in practice since the own time is spread evenly.
TrialJoin join_trial(uint32_t trial, const std::vector<ClientCalls>& clients, const Ledger& ledger);

}  // namespace rpclab::harness
