// One trial's join, made once: every call a client recorded against how
// many times the server's ledger says it ran, in the three shapes the
// trial's record needs: the classes (classify.h), each client's counts for
// the statistics over trials (TrialCounts), and the calls in error with
// their times for the episode detector (ErrorCall).
#pragma once

#include <cstdint>
#include <vector>

#include "server/ledger.h"
#include "harness/dependability/classify.h"
#include "harness/dependability/episodes.h"
#include "harness/record/trial_counts.h"

namespace rpclab::harness {

struct TrialJoin {
  ClassCounts classes;
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

// The classes alone (join_trial(...).classes).
ClassCounts classify(const std::vector<ClientCalls>& clients, const Ledger& ledger);

}  // namespace rpclab::harness
