#include "harness/kit/stats.h"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace rpclab::harness {
namespace {

constexpr double kZ95 = 1.959963984540054;  // the 97.5% point of the standard normal
constexpr double kAlpha = 0.05;              // every interval here is two-sided 95%

double per_million(uint64_t k, uint64_t n) { return 1e6 * static_cast<double>(k) / static_cast<double>(n); }

double t_quantile_975(double df) {
  boost::math::students_t dist(df);
  return boost::math::quantile(dist, 0.975);
}

}  // namespace

Interval wilson_interval(uint64_t k, uint64_t n) {
  if (n == 0) return {0, 1};
  k = std::min(k, n);
  double nn = static_cast<double>(n);
  double p = static_cast<double>(k) / nn;
  double z2 = kZ95 * kZ95;
  double denom = 1 + z2 / nn;
  double center = (p + z2 / (2 * nn)) / denom;
  double half = kZ95 * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
  // At k = 0 (k = n) the bound is exactly 0 (1); rounding must not move it.
  return {k == 0 ? 0.0 : std::max(0.0, center - half), k >= n ? 1.0 : std::min(1.0, center + half)};
}

Interval clopper_pearson_interval(uint64_t k, uint64_t n) {
  if (n == 0) return {0, 1};
  k = std::min(k, n);
  double kk = static_cast<double>(k), nn = static_cast<double>(n);
  Interval ci{0, 1};
  if (k > 0) ci.low = boost::math::ibeta_inv(kk, nn - kk + 1, kAlpha / 2);
  if (k < n) ci.high = boost::math::ibeta_inv(kk + 1, nn - kk, 1 - kAlpha / 2);
  return ci;
}

Interval poisson_exact_interval(uint64_t k) {
  double kk = static_cast<double>(k);
  Interval ci;
  if (k > 0) ci.low = boost::math::quantile(boost::math::chi_squared(2 * kk), kAlpha / 2) / 2;
  ci.high = boost::math::quantile(boost::math::chi_squared(2 * kk + 2), 1 - kAlpha / 2) / 2;
  return ci;
}

RatePerMillion proportion_per_million(uint64_t k, uint64_t n) {
  if (n == 0) return {0, 0, 0, "no-calls"};
  // More events than calls is not a proportion; give it the count's interval
  // (and its name) rather than one that would not contain the value.
  if (k > n) return count_per_million(k, n);
  Interval w = wilson_interval(k, n);
  return {per_million(k, n), 1e6 * w.low, 1e6 * w.high, "wilson"};
}

RatePerMillion count_per_million(uint64_t k, uint64_t n) {
  if (n == 0) return {0, 0, 0, "no-calls"};
  Interval g = poisson_exact_interval(k);
  double nn = static_cast<double>(n);
  return {per_million(k, n), 1e6 * g.low / nn, 1e6 * g.high / nn, "poisson-exact"};
}

double chi_square_upper_tail(double x, double df) {
  if (x <= 0) return 1;
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared(df), x));
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

namespace {

double log_choose(uint64_t n, uint64_t k) {
  return std::lgamma(double(n) + 1) - std::lgamma(double(k) + 1) - std::lgamma(double(n - k) + 1);
}

double mean_of(const std::vector<double>& v, const std::vector<size_t>& idx) {
  double sum = 0;
  for (size_t i : idx) sum += v[i];
  return sum / double(idx.size());
}

// |mean(pool[chosen]) - mean(pool[rest])|.
double split_gap(const std::vector<double>& pool, const std::vector<bool>& chosen) {
  double sa = 0, sb = 0;
  size_t na = 0;
  for (size_t i = 0; i < pool.size(); ++i) {
    if (chosen[i]) {
      sa += pool[i];
      ++na;
    } else {
      sb += pool[i];
    }
  }
  return std::fabs(sa / double(na) - sb / double(pool.size() - na));
}

}  // namespace

double fisher_exact_two_sided(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2) {
  uint64_t n = n1 + n2, k = k1 + k2;
  auto log_p = [&](uint64_t x) { return log_choose(k, x) + log_choose(n - k, n1 - x) - log_choose(n, n1); };
  uint64_t lo = n1 > n - k ? n1 - (n - k) : 0, hi = std::min(k, n1);
  double seen = log_p(k1), p = 0;
  for (uint64_t x = lo; x <= hi; ++x)
    if (double lp = log_p(x); lp <= seen + 1e-7) p += std::exp(lp);
  return std::min(1.0, p);
}

double permutation_test_means(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1;
  std::vector<double> pool(a);
  pool.insert(pool.end(), b.begin(), b.end());
  std::vector<size_t> ia(a.size()), ib(b.size());
  std::iota(ia.begin(), ia.end(), 0);
  std::iota(ib.begin(), ib.end(), a.size());
  double seen = std::fabs(mean_of(pool, ia) - mean_of(pool, ib)) - 1e-12 * (1 + std::fabs(mean_of(pool, ia)));
  std::vector<bool> chosen(pool.size(), false);
  std::fill(chosen.begin(), chosen.begin() + long(a.size()), true);
  uint64_t at_least = 0, total = 0;
  if (std::exp(log_choose(pool.size(), a.size())) <= 100000.5) {
    do {  // every split: prev_permutation walks each arrangement of the flags once
      ++total;
      at_least += split_gap(pool, chosen) >= seen;
    } while (std::prev_permutation(chosen.begin(), chosen.end()));
  } else {
    std::mt19937_64 rng(1989);
    for (total = 0; total < 100000; ++total) {
      std::shuffle(chosen.begin(), chosen.end(), rng);
      at_least += split_gap(pool, chosen) >= seen;
    }
  }
  return double(at_least) / double(total);
}

double permutation_smallest_p(size_t na, size_t nb) {
  if (na == 0 || nb == 0) return 1;
  double splits = std::exp(log_choose(na + nb, na));
  return std::min(1.0, (na == nb ? 2.0 : 1.0) / std::round(splits));
}

}  // namespace rpclab::harness
