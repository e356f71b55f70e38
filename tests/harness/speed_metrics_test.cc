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

TEST(SpeedMetrics, NoCallsNoFigures) {
  SpeedMetrics m = speed_metrics({});
  EXPECT_EQ(m.calls, 0u);
  EXPECT_DOUBLE_EQ(m.p50_us, 0);
}

}  // namespace
}  // namespace rpclab::harness
