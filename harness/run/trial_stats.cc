#include "harness/run/trial_stats.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <random>

#include "harness/kit/random_index.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

// Chance alone is an unlikely reason below this p (Kapfhammer's alpha).
constexpr double kDispersionAlpha = 0.01;
// ... and the spread is worth a reader's attention from twice the binomial.
constexpr double kDispersionIndexFlag = 2;

double rate(uint64_t events, uint64_t calls) {
  return calls ? 1e6 * static_cast<double>(events) / static_cast<double>(calls) : 0;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// Rates as a person reads them: "266,910", and "0.4" where rounding would
// turn a rate that is not zero into 0.
std::string rate_text(double v) {
  if (v > 0 && v < 9.95) return fmt::format("{:.1f}", v);
  return grouped(static_cast<uint64_t>(std::llround(v)));
}

std::string index_text(double index) {
  return index >= 10 ? grouped(static_cast<uint64_t>(std::llround(index))) : fmt::format("{:.1f}", index);
}

// Pearson's chi-square of one stratum's groups against the stratum's own
// pooled rate; adds to d and returns the rarer outcome's count (events, or
// non-events when nearly every call is one), or nothing when the stratum
// has nothing to compare.
std::optional<uint64_t> add_stratum(const std::vector<GroupCount>& stratum, Dispersion& d) {
  uint64_t k = 0, n = 0;
  size_t groups = 0;
  for (const GroupCount& g : stratum) {
    if (!g.calls) continue;
    k += g.events;
    n += g.calls;
    ++groups;
  }
  if (groups < 2 || k == 0 || k >= n) return std::nullopt;
  double p = static_cast<double>(k) / static_cast<double>(n);
  for (const GroupCount& g : stratum) {
    if (!g.calls) continue;
    double expected = static_cast<double>(g.calls) * p;
    double diff = static_cast<double>(g.events) - expected;
    d.chi_square += diff * diff / (expected * (1 - p));
  }
  d.df += static_cast<double>(groups - 1);
  return std::min(k, n - k);
}

}  // namespace

Dispersion binomial_dispersion(const std::vector<std::vector<GroupCount>>& strata) {
  Dispersion d;
  uint64_t rarer = 0;
  size_t groups = 0;
  for (const std::vector<GroupCount>& stratum : strata) {
    for (const GroupCount& g : stratum)
      if (g.events > g.calls) {
        d.not_tested_because = "more events than calls: a count, not a proportion";
        return d;
      }
    if (auto r = add_stratum(stratum, d)) {
      rarer += *r;
      groups += static_cast<size_t>(std::count_if(stratum.begin(), stratum.end(), [](auto& g) { return g.calls > 0; }));
    }
  }
  if (d.df == 0) {
    d.not_tested_because = "nothing to compare: no events, or fewer than two groups with calls";
  } else if (rarer < groups) {
    // Below one expected event per group the chi-square's p-value is not to
    // be trusted (Cochran's rule, relaxed), and three errors in one client of
    // eight would be flagged although chance gives that one time in 64.
    d.not_tested_because = fmt::format("{} events over {} groups: too few to tell a spread from chance", rarer, groups);
    d.chi_square = d.df = 0;
  } else {
    d.tested = true;
    d.index = d.chi_square / d.df;
    d.p_value = chi_square_upper_tail(d.chi_square, d.df);
    d.far_beyond_binomial = d.index >= kDispersionIndexFlag && d.p_value < kDispersionAlpha;
  }
  return d;
}

BootstrapInterval cluster_bootstrap(const std::vector<std::vector<GroupCount>>& trials, uint64_t seed, int resamples) {
  BootstrapInterval b;
  b.seed = seed;
  b.resamples = resamples;
  std::vector<std::vector<GroupCount>> usable;
  for (const std::vector<GroupCount>& trial : trials) {
    std::vector<GroupCount> clients;
    std::copy_if(trial.begin(), trial.end(), std::back_inserter(clients), [](auto& g) { return g.calls > 0; });
    if (!clients.empty()) usable.push_back(std::move(clients));
  }
  if (usable.empty() || resamples <= 0) return b;
  std::mt19937_64 rng(seed);
  std::vector<double> rates;
  rates.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    uint64_t k = 0, n = 0;
    for (size_t i = 0; i < usable.size(); ++i) {
      const std::vector<GroupCount>& trial = usable[random_index(rng, usable.size())];
      for (size_t j = 0; j < trial.size(); ++j) {
        const GroupCount& client = trial[random_index(rng, trial.size())];
        k += client.events;
        n += client.calls;
      }
    }
    rates.push_back(rate(k, n));
  }
  std::sort(rates.begin(), rates.end());
  b.low_per_million = percentile_sorted(rates, 2.5);
  b.high_per_million = percentile_sorted(rates, 97.5);
  return b;
}

OverTrials over_trials(const std::vector<TrialCounts>& trials, ClientCount events, uint64_t seed, int resamples) {
  OverTrials o;
  std::vector<std::vector<GroupCount>> by_trial;
  std::vector<GroupCount> totals;
  for (const TrialCounts& t : trials) {
    std::vector<GroupCount> clients;
    GroupCount total;
    for (const ClientTrialCounts& c : t.clients) {
      if (!c.calls) continue;
      clients.push_back({c.*events, c.calls});
      total.events += c.*events;
      total.calls += c.calls;
    }
    if (clients.empty()) continue;
    by_trial.push_back(std::move(clients));
    totals.push_back(total);
    o.per_trial_per_million.push_back(rate(total.events, total.calls));
    o.events += total.events;
    o.calls += total.calls;
    if (total.events) ++o.trials_with_events;
  }
  o.trials = by_trial.size();
  o.pooled = proportion_per_million(o.events, o.calls);
  if (o.trials == 0) return o;
  o.trials_with_events_ci95 = clopper_pearson_interval(o.trials_with_events, o.trials);
  o.median_per_million = median_of(o.per_trial_per_million);
  auto [lo, hi] = std::minmax_element(o.per_trial_per_million.begin(), o.per_trial_per_million.end());
  o.min_per_million = *lo;
  o.max_per_million = *hi;
  o.bootstrap = cluster_bootstrap(by_trial, seed, resamples);
  o.between_trials = binomial_dispersion({totals});
  o.between_clients = binomial_dispersion(by_trial);
  return o;
}

std::string trials_headline(const OverTrials& o) {
  size_t n = o.trials, k = o.trials_with_events;
  if (n == 0) return "no trials";
  // None seen: how often a trial could still have one, from the number
  // of trials (Clopper-Pearson's upper end), not a bound over the calls,
  // which are not independent (issue 26).
  if (k == 0)
    return fmt::format("0 in {} (<={:.0f}%)", n == 1 ? "1 trial" : fmt::format("all {} trials", n),
                       100 * o.trials_with_events_ci95.high);
  std::vector<double> seen;
  std::copy_if(o.per_trial_per_million.begin(), o.per_trial_per_million.end(), std::back_inserter(seen),
               [](double v) { return v > 0; });
  auto [lo, hi] = std::minmax_element(seen.begin(), seen.end());
  std::string value = *lo == *hi ? rate_text(*lo) : rate_text(*lo) + "-" + rate_text(*hi);
  if (k == n) return n == 1 ? value + " in 1 trial" : fmt::format("{} in all {} trials", value, n);
  return fmt::format("{} in {} of {} trials (0 in {})", value, k, n, n - k);
}

std::string dispersion_note(const OverTrials& o) {
  std::vector<std::string> notes;
  if (o.between_trials.far_beyond_binomial)
    notes.push_back(fmt::format("spread between trials {}x binomial", index_text(o.between_trials.index)));
  if (o.between_clients.far_beyond_binomial)
    notes.push_back(fmt::format("spread between clients {}x binomial", index_text(o.between_clients.index)));
  return fmt::format("{}", fmt::join(notes, ", "));
}

Interval pooled_spread(const OverTrials& o, std::string* name) {
  bool bootstrap = o.trials >= kLeastBootstrapTrials;
  if (name) *name = bootstrap ? "bootstrap" : "range";
  return bootstrap ? Interval{o.bootstrap.low_per_million, o.bootstrap.high_per_million}
                   : Interval{o.min_per_million, o.max_per_million};
}

std::string trials_detail(const OverTrials& o) {
  if (o.trials == 0) return "no trials";
  std::string spread_name;
  Interval spread = pooled_spread(o, &spread_name);
  std::string line = fmt::format(
      "median {}, range {}-{}; pooled {} [{} {}-{}]; trials with any: {} of {} [{:.1f}%-{:.1f}%]",
      rate_text(o.median_per_million), rate_text(o.min_per_million), rate_text(o.max_per_million),
      rate_text(o.pooled.value), spread_name, rate_text(spread.low), rate_text(spread.high), o.trials_with_events,
      o.trials, 100 * o.trials_with_events_ci95.low, 100 * o.trials_with_events_ci95.high);
  std::string note = dispersion_note(o);
  return note.empty() ? line : line + "; " + note;
}

}  // namespace rpclab::harness
