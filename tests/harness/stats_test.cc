// Statistics against values computed independently (scipy 1.x, R's t.test).
#include <gtest/gtest.h>

#include <cmath>

#include "harness/stats.h"

namespace rpclab::harness {
namespace {

TEST(Stats, WilsonIntervalMatchesReference) {
  Interval w = wilson_interval(5, 100);
  EXPECT_NEAR(w.low, 0.0215437, 1e-6);
  EXPECT_NEAR(w.high, 0.1117505, 1e-6);
  Interval tiny = wilson_interval(1, 100000);
  EXPECT_NEAR(tiny.low, 1.76525e-6, 1e-10);
  EXPECT_NEAR(tiny.high, 5.66471e-5, 1e-9);
}

TEST(Stats, ZeroEventsUseTheRuleOfThree) {
  RatePerMillion r = per_million(0, 100000);
  EXPECT_EQ(r.method, "rule-of-three");
  EXPECT_DOUBLE_EQ(r.value, 0);
  EXPECT_DOUBLE_EQ(r.ci95_low, 0);
  EXPECT_DOUBLE_EQ(r.ci95_high, 30);  // 3 / 100,000 calls = 30 per million
}

TEST(Stats, RatePerMillionUsesWilsonWhenEventsWereSeen) {
  RatePerMillion r = per_million(5, 100);
  EXPECT_EQ(r.method, "wilson");
  EXPECT_DOUBLE_EQ(r.value, 50000);
  EXPECT_NEAR(r.ci95_low, 21543.7, 0.1);
  EXPECT_NEAR(r.ci95_high, 111750.5, 0.1);
}

TEST(Stats, NoCallsIsNotARate) {
  RatePerMillion r = per_million(0, 0);
  EXPECT_EQ(r.method, "no-calls");
  EXPECT_DOUBLE_EQ(r.ci95_high, 0);
}

TEST(Stats, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 1; i <= 1000; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 50), 500);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 99), 990);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 99.9), 999);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 100), 1000);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile_sorted({}, 50), 0);
  EXPECT_DOUBLE_EQ(percentile_sorted({7}, 99.9), 7);
}

TEST(Stats, MeanWithStudentTInterval) {
  Summary s = summarize({1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.stddev, 1.5811388, 1e-6);
  double half = 2.7764451051977934 * 1.5811388300841898 / std::sqrt(5.0);
  EXPECT_NEAR(s.ci95_low, 3 - half, 1e-6);
  EXPECT_NEAR(s.ci95_high, 3 + half, 1e-6);
  Summary one = summarize({4});
  EXPECT_EQ(one.n, 1u);
  EXPECT_DOUBLE_EQ(one.ci95_low, 4);
}

TEST(Stats, WelchMatchesScipy) {
  WelchResult w = welch_t_test({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10});
  EXPECT_NEAR(w.t, -1.8973666, 1e-6);
  EXPECT_NEAR(w.df, 5.8823529, 1e-6);
  EXPECT_NEAR(w.p, 0.1075312, 1e-6);
  EXPECT_FALSE(w.significant(0.01));
  WelchResult clear = welch_t_test({10.1, 10.3, 9.9, 10.0, 10.2, 10.4, 9.8, 10.1},
                                   {10.6, 10.9, 10.4, 10.8, 10.7, 11.0, 10.5, 10.6});
  EXPECT_NEAR(clear.t, -5.8296325, 1e-6);
  EXPECT_NEAR(clear.p, 4.3754e-05, 1e-8);
  EXPECT_TRUE(clear.significant(0.01));
}

TEST(Stats, WelchWithoutVarianceOrSamples) {
  EXPECT_DOUBLE_EQ(welch_t_test({2, 2, 2}, {2, 2, 2}).p, 1);
  EXPECT_DOUBLE_EQ(welch_t_test({2, 2, 2}, {3, 3, 3}).p, 0);
  EXPECT_DOUBLE_EQ(welch_t_test({1}, {1, 2}).p, 1);
}

}  // namespace
}  // namespace rpclab::harness
