// One trial's join in the shapes the statistics over trials (TrialCounts)
// and the episode detector (ErrorCall) read, made from the same client
// records and ledger that classify() reads, by the same class rules.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ledger.h"
#include "harness/classify.h"
#include "harness/episodes.h"
#include "harness/trial_counts.h"

namespace rpclab::harness {

struct TrialJoin {
  TrialCounts counts;
  std::vector<ErrorCall> errors;  // times from the earliest client's first call
};

// A call record holds each call's latency and the first call's start
// (CLOCK_REALTIME), not each call's start. The calls run back to back, so
// call i ends at that start plus the latencies of calls 0..i plus i shares
// of the loop's own time (wall_ns less the latencies, spread evenly). The
// error of that estimate is at most the loop's own time, well under a
// millisecond per 10,000 calls.
TrialJoin join_trial(uint32_t trial, const std::vector<ClientCalls>& clients, const Ledger& ledger);

}  // namespace rpclab::harness
