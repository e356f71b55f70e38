// The statistics rpclab reports, each in one place and unit-tested against
// known values: rates per million with 95% intervals, percentiles of exact
// samples, means with t-intervals, and Welch's t-test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rpclab::harness {

struct Interval {
  double low = 0;
  double high = 0;
};

// 95% Wilson score interval for the proportion k/n.
Interval wilson_interval(uint64_t k, uint64_t n);

// Events per 1,000,000 calls with a 95% interval: Wilson when k > 0, the rule
// of three ([0, 3/n]) when k == 0, which is the usual bound for "none seen".
struct RatePerMillion {
  double value = 0;
  double ci95_low = 0;
  double ci95_high = 0;
  std::string method;  // "wilson" | "rule-of-three" | "no-calls"
};
RatePerMillion per_million(uint64_t k, uint64_t n);

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

}  // namespace rpclab::harness
