// The statistics rpclab reports, each in one place and unit-tested against
// textbook values: rates per million with 95% intervals of the right kind,
// percentiles of exact samples, means with t-intervals, and Welch's t-test.
// Statistics over trials are in trial_stats.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rpclab::harness {

struct Interval {
  double low = 0;
  double high = 0;
};

// Two-sided 95% intervals, each for one kind of figure (docs/results-format.md,
// "Statistics"):
//
// Wilson score interval for a proportion k/n (calls that ...): the same
// formula at every k, 0 included, so a cell that saw none and one that saw
// some print intervals of the same kind (at k = 0 it is [0, z^2/(n+z^2)],
// about 3.84/n).
Interval wilson_interval(uint64_t k, uint64_t n);
// Clopper-Pearson ("exact") interval for k successes in n: used where n is
// small (trials), since it never covers less than 95%. Equals R's binom.test.
Interval clopper_pearson_interval(uint64_t k, uint64_t n);
// Garwood's exact interval for the mean of a Poisson count k (k may exceed
// any number of calls): [chi2(0.025, 2k)/2, chi2(0.975, 2k+2)/2], [0, 3.689]
// at k = 0. Equals R's poisson.test.
Interval poisson_exact_interval(uint64_t k);

// A figure per 1,000,000 calls with its 95% interval, which always contains
// the value. method names the interval: "wilson", "poisson-exact", or
// "no-calls" (n == 0: no figure at all).
struct RatePerMillion {
  double value = 0;
  double ci95_low = 0;
  double ci95_high = 0;
  std::string method;  // its JSON form: harness/record/classes.h
};
// Calls that ... (silent loss, silent duplicates, duplicate calls,
// indeterminate): at most one per call, so a proportion of n. Wilson.
RatePerMillion proportion_per_million(uint64_t k, uint64_t n);
// Events that can exceed the calls (Levy's mismatches, extra executions):
// a count over n calls of exposure. Garwood's Poisson interval.
RatePerMillion count_per_million(uint64_t k, uint64_t n);

// P(X >= x) for X chi-square with df degrees of freedom (df > 0).
double chi_square_upper_tail(double x, double df);

// Nearest-rank percentile (p in [0, 100]) of samples sorted ascending: the
// smallest sample with at least p% of samples at or below it. Exact, no
// interpolation, so p99.9 of 1,000 samples is the 999th.
double percentile_sorted(const std::vector<double>& sorted, double p);

struct Summary {
  size_t n = 0;
  double mean = 0;
  double stddev = 0;      // sample standard deviation (n - 1)
  double ci95_low = 0;    // Student-t interval for the mean
  double ci95_high = 0;
};
Summary summarize(const std::vector<double>& values);

// Welch's unequal-variance t-test of the means of a and b (two-sided).
struct WelchResult {
  double t = 0;
  double df = 0;
  double p = 1;
  bool significant(double alpha) const { return p < alpha; }
};
WelchResult welch_t_test(const std::vector<double>& a, const std::vector<double>& b);

// Fisher's exact test (two-sided, R's fisher.test) of k1 of n1 against k2
// of n2: the probability, with the margins fixed, of a table no more
// likely than the one seen.
double fisher_exact_two_sided(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2);

// A two-sided permutation test of the difference of means of a and b:
// the share of the splits of a + b into groups of their sizes whose means
// differ at least as much. Every split while there are at most 100,000,
// else 100,000 random ones (a fixed seed, so the same data give the same p).
double permutation_test_means(const std::vector<double>& a, const std::vector<double>& b);
// The smallest p that test can give groups of na and nb, however far apart
// their values: the extreme split's share of all splits (with na == nb its
// mirror is as extreme: 2 of C(na+nb, na)). 3 a side: 2/20 = 0.1.
double permutation_smallest_p(size_t na, size_t nb);

}  // namespace rpclab::harness
