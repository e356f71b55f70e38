#include "harness/stats.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rpclab::harness {
namespace {

constexpr double kZ95 = 1.959963984540054;

double t_quantile_975(double df) {
  boost::math::students_t dist(df);
  return boost::math::quantile(dist, 0.975);
}

}  // namespace

Interval wilson_interval(uint64_t k, uint64_t n) {
  if (n == 0) return {0, 1};
  double nn = static_cast<double>(n);
  double p = static_cast<double>(k) / nn;
  double z2 = kZ95 * kZ95;
  double denom = 1 + z2 / nn;
  double center = (p + z2 / (2 * nn)) / denom;
  double half = kZ95 * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

RatePerMillion per_million(uint64_t k, uint64_t n) {
  RatePerMillion r;
  if (n == 0) {
    r.method = "no-calls";
    return r;
  }
  double nn = static_cast<double>(n);
  r.value = 1e6 * static_cast<double>(k) / nn;
  if (k == 0) {
    r.ci95_high = 1e6 * std::min(1.0, 3.0 / nn);
    r.method = "rule-of-three";
  } else {
    Interval w = wilson_interval(k, n);
    r.ci95_low = 1e6 * w.low;
    r.ci95_high = 1e6 * w.high;
    r.method = "wilson";
  }
  return r;
}

double percentile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  // The epsilon keeps 99.9% of 1,000 at rank 999 despite 0.999 * 1000 rounding up.
  double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()) - 1e-9);
  size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.n = values.size();
  if (s.n == 0) return s;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(s.n);
  s.ci95_low = s.ci95_high = s.mean;
  if (s.n < 2) return s;
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  double half = t_quantile_975(static_cast<double>(s.n - 1)) * s.stddev / std::sqrt(static_cast<double>(s.n));
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  return s;
}

WelchResult welch_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  WelchResult w;
  Summary sa = summarize(a), sb = summarize(b);
  if (sa.n < 2 || sb.n < 2) return w;
  double va = sa.stddev * sa.stddev / static_cast<double>(sa.n);
  double vb = sb.stddev * sb.stddev / static_cast<double>(sb.n);
  if (va + vb == 0) {
    w.p = sa.mean == sb.mean ? 1 : 0;
    return w;
  }
  w.t = (sa.mean - sb.mean) / std::sqrt(va + vb);
  w.df = (va + vb) * (va + vb) /
         (va * va / static_cast<double>(sa.n - 1) + vb * vb / static_cast<double>(sb.n - 1));
  boost::math::students_t dist(w.df);
  w.p = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(w.t)));
  return w;
}

}  // namespace rpclab::harness
