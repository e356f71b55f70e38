// Statistics against textbook values. Each interval method is pinned to a
// published table or to R, the source named beside the values; every value
// was also recomputed independently (mpmath, 30 digits) before being pinned.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/kit/stats.h"

namespace rpclab::harness {
namespace {

// Newcombe, R. G. (1998). Two-sided confidence intervals for the single
// proportion: comparison of seven methods. Statistics in Medicine 17,
// 857-872, Table II, method 3 (Wilson score, no continuity correction).
TEST(Stats, WilsonMatchesNewcombeTableII) {
  struct Row { uint64_t k, n; double low, high; };
  for (const Row& r : {Row{81, 263, 0.2553, 0.3662}, Row{15, 148, 0.0624, 0.1605}, Row{0, 20, 0.0, 0.1611},
                       Row{1, 29, 0.0061, 0.1718}}) {
    Interval w = wilson_interval(r.k, r.n);
    EXPECT_NEAR(w.low, r.low, 5e-5) << r.k << "/" << r.n;
    EXPECT_NEAR(w.high, r.high, 5e-5) << r.k << "/" << r.n;
  }
}

TEST(Stats, WilsonAtZeroIsTwoSidedAndClosedForm) {
  // Brown, Cai, DasGupta (2001), Statistical Science 16, eq. (4): at x = 0 the
  // Wilson interval is [0, z^2 / (n + z^2)], z = 1.959964.
  double z2 = 1.959963984540054 * 1.959963984540054;
  Interval w = wilson_interval(0, 100000);
  EXPECT_EQ(w.low, 0.0);
  EXPECT_NEAR(w.high, z2 / (100000 + z2), 1e-15);
  EXPECT_NEAR(1e6 * w.high, 38.41, 0.005);  // "0 (<38)" per million over 100,000 calls
  Interval all = wilson_interval(20, 20);
  EXPECT_EQ(all.high, 1.0);
  EXPECT_NEAR(all.low, 1 - 0.1611, 5e-5);  // the mirror of Newcombe's 0/20
}

// Newcombe (1998) Table II, method 5 (Clopper-Pearson "exact"); the small-n
// rows are R 4.x binom.test(k, n)$conf.int.
TEST(Stats, ClopperPearsonMatchesNewcombeAndR) {
  struct Row { uint64_t k, n; double low, high; };
  for (const Row& r : {Row{81, 263, 0.2527, 0.3676}, Row{15, 148, 0.0578, 0.1617}, Row{0, 20, 0.0, 0.1684},
                       Row{1, 29, 0.0009, 0.1776}, Row{1, 5, 0.005051, 0.7164}, Row{2, 10, 0.02521, 0.5561},
                       Row{0, 5, 0.0, 0.5218}, Row{5, 5, 0.4782, 1.0}}) {
    Interval cp = clopper_pearson_interval(r.k, r.n);
    EXPECT_NEAR(cp.low, r.low, 5e-5) << r.k << "/" << r.n;
    EXPECT_NEAR(cp.high, r.high, 5e-5) << r.k << "/" << r.n;
  }
  // The exact bound at zero in closed form: 1 - 0.025^(1/n).
  EXPECT_NEAR(clopper_pearson_interval(0, 20).high, 1 - std::pow(0.025, 1.0 / 20), 1e-12);
}

// Garwood (1936), Biometrika 28, 437-442, in the chi-square form of Ulm
// (1990), Am. J. Epidemiol. 131, 373-375; the values are R's
// poisson.test(x)$conf.int (poisson.test(10) gives 4.795389 18.390356).
TEST(Stats, PoissonExactMatchesGarwoodTable) {
  struct Row { uint64_t k; double low, high; };
  for (const Row& r : {Row{0, 0.0, 3.689}, Row{1, 0.02532, 5.572}, Row{2, 0.2422, 7.225}, Row{3, 0.6187, 8.767},
                       Row{5, 1.623, 11.67}, Row{10, 4.795, 18.39}, Row{100, 81.36, 121.6}}) {
    Interval g = poisson_exact_interval(r.k);
    double tol = 5e-4 * std::max(1.0, r.high);  // 4 significant digits
    EXPECT_NEAR(g.low, r.low, tol) << r.k;
    EXPECT_NEAR(g.high, r.high, tol) << r.k;
  }
  EXPECT_NEAR(poisson_exact_interval(0).high, -std::log(0.025), 1e-9);  // two-sided: 2.5% in the upper tail
}

TEST(Stats, ProportionsPerMillionUseWilsonAtEveryCount) {
  RatePerMillion r = proportion_per_million(5, 100);
  EXPECT_EQ(r.method, "wilson");
  EXPECT_DOUBLE_EQ(r.value, 50000);
  EXPECT_NEAR(r.ci95_low, 21543.7, 0.1);
  EXPECT_NEAR(r.ci95_high, 111750.5, 0.1);
  RatePerMillion none = proportion_per_million(0, 100000);
  EXPECT_EQ(none.method, "wilson");
  EXPECT_DOUBLE_EQ(none.value, 0);
  EXPECT_DOUBLE_EQ(none.ci95_low, 0);
  EXPECT_NEAR(none.ci95_high, 38.41, 0.005);
}

TEST(Stats, CountsPerMillionUsePoissonExactAndMayExceedAMillion) {
  // Mismatches can exceed the calls (issue 10's cell 008: 6,784,190 per million).
  RatePerMillion r = count_per_million(135684, 20000);
  EXPECT_EQ(r.method, "poisson-exact");
  EXPECT_DOUBLE_EQ(r.value, 6784200);
  EXPECT_LT(r.ci95_low, r.value);
  EXPECT_GT(r.ci95_high, r.value);
  EXPECT_GT(r.ci95_low, 1e6);  // a count, not a proportion capped at 1
  RatePerMillion ten = count_per_million(10, 1000000);
  EXPECT_NEAR(ten.ci95_low, 4.795, 5e-4);
  EXPECT_NEAR(ten.ci95_high, 18.39, 5e-3);
  RatePerMillion zero = count_per_million(0, 100000);
  EXPECT_DOUBLE_EQ(zero.ci95_low, 0);
  EXPECT_NEAR(zero.ci95_high, 36.89, 0.005);
}

TEST(Stats, EveryRateIntervalContainsItsValue) {
  for (uint64_t n : {1u, 7u, 20u, 1000u, 100000u})
    for (uint64_t k : {0u, 1u, 3u, 7u, 20u, 1000u, 250000u}) {
      for (const RatePerMillion& r : {proportion_per_million(k, n), count_per_million(k, n)}) {
        EXPECT_LE(r.ci95_low, r.value) << r.method << " " << k << "/" << n;
        EXPECT_GE(r.ci95_high, r.value) << r.method << " " << k << "/" << n;
      }
    }
  // More events than calls is not a proportion: the count's interval is used.
  EXPECT_EQ(proportion_per_million(3, 2).method, "poisson-exact");
}

TEST(Stats, NoCallsIsNotARate) {
  for (const RatePerMillion& r : {proportion_per_million(0, 0), count_per_million(0, 0)}) {
    EXPECT_EQ(r.method, "no-calls");
    EXPECT_DOUBLE_EQ(r.ci95_high, 0);
  }
}

// R: pchisq(x, df, lower.tail = FALSE).
TEST(Stats, ChiSquareUpperTailMatchesR) {
  EXPECT_NEAR(chi_square_upper_tail(21, 7), 0.003770150, 1e-8);
  EXPECT_NEAR(chi_square_upper_tail(7, 7), 0.4288799, 1e-7);
  EXPECT_NEAR(chi_square_upper_tail(12, 4), 0.01735127, 1e-8);
  EXPECT_DOUBLE_EQ(chi_square_upper_tail(0, 3), 1);
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

namespace rpclab::harness {
namespace {

// R: fisher.test(matrix(c(1, 9, 11, 3), nrow = 2))$p.value = 0.002759456;
// fisher.test(matrix(c(3, 1, 1, 3), nrow = 2))$p.value = 0.4857143.
TEST(Stats, FisherExactMatchesR) {
  EXPECT_NEAR(fisher_exact_two_sided(1, 10, 11, 14), 0.002759456, 1e-8);
  EXPECT_NEAR(fisher_exact_two_sided(3, 4, 1, 4), 0.4857143, 1e-7);
  EXPECT_NEAR(fisher_exact_two_sided(0, 20000, 0, 20000), 1.0, 1e-12);
  EXPECT_LT(fisher_exact_two_sided(0, 20000, 300, 20000), 1e-50);
}

// {1,2,3} vs {4,5,6}: of the 20 splits, only itself and its mirror are as
// far apart.
TEST(Stats, PermutationTestCountsEverySplit) {
  EXPECT_NEAR(permutation_test_means({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  EXPECT_NEAR(permutation_test_means({1, 2, 3}, {1, 2, 3}), 1.0, 1e-12);
  EXPECT_NEAR(permutation_test_means({0, 0}, {0, 0}), 1.0, 1e-12);
  std::vector<double> a(12, 0.0), b(12, 1.0);  // C(24, 12) splits: sampled, seeded
  double p = permutation_test_means(a, b);
  EXPECT_LT(p, 1e-4);
  EXPECT_EQ(p, permutation_test_means(a, b)) << "the same data give the same p";
}

}  // namespace
}  // namespace rpclab::harness
