#include <gtest/gtest.h>

#include "harness/speed/speed_metrics.h"

namespace rpclab::harness {
namespace {

CallRecord client(std::vector<int64_t> latencies_ns, int64_t start_ns, int64_t end_ns, double cpu_us) {
  CallRecord r;
  for (size_t i = 0; i < latencies_ns.size(); ++i)
    r.calls.push_back({static_cast<uint32_t>(i), ErrorKind::kOk, 0, latencies_ns[i]});
  r.header = {{"start_realtime_ns", start_ns}, {"end_realtime_ns", end_ns}, {"cpu_user_us", cpu_us}, {"cpu_sys_us", 0}};
  return r;
}

TEST(SpeedMetrics, TrialsSpanClientsAndLevyUnitIsPer100Calls) {
  // Two clients, two trials of two calls each; each trial is its own run
  // of the clients, half a second long.
  CallRecord a1 = client({10000, 20000}, 0, 500000000, 20), a2 = client({30000, 40000}, 0, 500000000, 20);
  CallRecord b1 = client({10000, 20000}, 1000000, 500000000, 20), b2 = client({30000, 40000}, 0, 500000000, 20);
  SpeedMetrics m = speed_metrics({{a1, b1}, {a2, b2}});
  EXPECT_EQ(m.calls, 8u);
  ASSERT_EQ(m.trial_means_us.size(), 2u);
  EXPECT_DOUBLE_EQ(m.trial_means_us[0], 15);
  EXPECT_DOUBLE_EQ(m.trial_means_us[1], 35);
  EXPECT_DOUBLE_EQ(m.mean_us, 25);
  EXPECT_DOUBLE_EQ(m.seconds_per_100_calls, 25e-6 * 100);
  EXPECT_DOUBLE_EQ(m.p50_us, 20);
  EXPECT_DOUBLE_EQ(m.max_us, 40);
  EXPECT_DOUBLE_EQ(m.calls_per_s, 8);  // 8 calls over the two trials' 0.5 s each
  EXPECT_DOUBLE_EQ(m.client_cpu_us_per_call, 10);
  EXPECT_DOUBLE_EQ(m.start_skew_ms, 1);  // trial 1's; trial 2's clients began together
}

TEST(SpeedMetrics, FailedCallsAreCountedButNotTimed) {
  CallRecord a = client({10000, 99000000}, 0, 1000000000, 0);
  a.calls[1].kind = ErrorKind::kTimeout;
  SpeedMetrics m = speed_metrics({{a}});
  EXPECT_EQ(m.calls, 1u);
  EXPECT_EQ(m.errors, 1u);
  EXPECT_DOUBLE_EQ(m.max_us, 10);
}

// Open loop at 1,000 calls/s: call i due at i ms. Call 2 takes 1.5 ms,
// so call 3 leaves 0.503 ms late and counts that wait; the figures are
// from each call's due time, computed here by hand.
TEST(SpeedMetrics, OpenLoopLatencyIsFromTheDueTime) {
  //                     start_ns     latency_ns   from due (us)
  // call 0 due 0        10,000       50,000       60
  // call 1 due 1 ms     1,005,000    40,000       45
  // call 2 due 2 ms     2,002,000    1,500,000    1,502
  // call 3 due 3 ms     3,503,000    40,000       543   (late: call 2 ended at 3.502 ms)
  // call 4 due 4 ms     4,001,000    30,000       31
  CallRecord r = client({50000, 40000, 1500000, 40000, 30000}, 0, 4031000, 5);
  const int64_t starts[] = {10000, 1005000, 2002000, 3503000, 4001000};
  for (size_t i = 0; i < 5; ++i) r.calls[i].start_ns = starts[i];
  SpeedMetrics closed = speed_metrics({{r}});
  EXPECT_FALSE(closed.offered_per_s);
  EXPECT_DOUBLE_EQ(closed.max_us, 1500);  // without a rate: from each call's start
  EXPECT_DOUBLE_EQ(closed.p50_us, 40);

  r.header["rate_per_s"] = 1000;
  EXPECT_EQ(r.due_ns(3), 3000000);
  EXPECT_EQ(latency_from_due_ns(r, 3), 543000);
  SpeedMetrics m = speed_metrics({{r}});
  ASSERT_TRUE(m.offered_per_s);
  EXPECT_DOUBLE_EQ(*m.offered_per_s, 1000);
  EXPECT_DOUBLE_EQ(m.max_us, 1502);
  EXPECT_DOUBLE_EQ(m.p50_us, 60);  // of 31, 45, 60, 543, 1502
  EXPECT_DOUBLE_EQ(m.mean_us, (60.0 + 45 + 1502 + 543 + 31) / 5);
  EXPECT_DOUBLE_EQ(m.calls_per_s, 5 / 0.004031);  // achieved: the calls over the trial's span
  ASSERT_TRUE(m.figures().offered_per_s);
  EXPECT_DOUBLE_EQ(*m.figures().offered_per_s, 1000);
}

TEST(SpeedMetrics, NoCallsNoFigures) {
  SpeedMetrics m = speed_metrics({});
  EXPECT_EQ(m.calls, 0u);
  EXPECT_DOUBLE_EQ(m.p50_us, 0);
}

}  // namespace
}  // namespace rpclab::harness
