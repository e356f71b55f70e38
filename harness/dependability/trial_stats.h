// A figure over N independent trials of one cell (Kapfhammer's repeated
// trials, seed 004): in how many trials it happened at all, the spread of
// the per-trial rates, a bootstrap interval of the pooled rate, and whether
// trials or clients differ far more than chance would make them differ.
// The methods and why: docs/results-format.md, "Statistics".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/kit/stats.h"
#include "harness/record/trial_counts.h"

namespace rpclab::harness {

// Pearson's chi-square of the counts against one binomial rate per stratum
// (the pooled rate of the trial, or of the cell), over the groups (clients,
// or trials). index = chi_square / df: about 1 when the groups differ only
// by chance, 100 when their spread is ten times the binomial one.
struct Dispersion {
  bool tested = false;
  std::string not_tested_because;  // when !tested
  double chi_square = 0;
  double df = 0;
  double index = 0;
  double p_value = 1;
  // index >= 2 and p < 0.01: the spread is at least twice what a binomial
  // allows, and chance is not a likely reason.
  bool far_beyond_binomial = false;
  nlohmann::json to_json() const;
  static Dispersion from_json(const nlohmann::json& j);
};

// Groups (clients or trials) of counts in strata that each have their own
// rate; exposed for tests and for figures other than the ones below.
struct GroupCount {
  uint64_t events = 0;
  uint64_t calls = 0;
};
Dispersion binomial_dispersion(const std::vector<std::vector<GroupCount>>& strata);

inline constexpr uint64_t kBootstrapSeed = 20151989;  // fixed, and recorded with the interval
inline constexpr int kBootstrapResamples = 2000;

// Percentile interval of the pooled rate (per million) from a two-stage
// cluster bootstrap: resample the trials, then the clients within each
// resampled trial, both with replacement. Deterministic given the seed.
struct BootstrapInterval {
  double low_per_million = 0;
  double high_per_million = 0;
  uint64_t seed = kBootstrapSeed;
  int resamples = kBootstrapResamples;
  nlohmann::json to_json() const;
  static BootstrapInterval from_json(const nlohmann::json& j);
};
BootstrapInterval cluster_bootstrap(const std::vector<std::vector<GroupCount>>& trials,
                                    uint64_t seed = kBootstrapSeed, int resamples = kBootstrapResamples);

struct OverTrials {
  size_t trials = 0;              // trials with at least one call
  size_t trials_with_events = 0;  // ... and at least one event
  Interval trials_with_events_ci95;  // Clopper-Pearson, fraction of trials
  uint64_t events = 0;
  uint64_t calls = 0;
  RatePerMillion pooled;  // all trials' events over all calls; Wilson as if independent
  std::vector<double> per_trial_per_million;  // in trial order
  double median_per_million = 0;
  double min_per_million = 0;
  double max_per_million = 0;
  BootstrapInterval bootstrap;
  Dispersion between_trials;
  Dispersion between_clients;  // within trials
  nlohmann::json to_json() const;
  // Back from a cell's record, for the views; throws nlohmann::json::exception.
  static OverTrials from_json(const nlohmann::json& j);
};
OverTrials over_trials(const std::vector<TrialCounts>& trials, ClientCount events, uint64_t seed = kBootstrapSeed,
                       int resamples = kBootstrapResamples);

// The cell's headline: "266,910 in 1 of 5 trials (0 in 4)", "0 in all 5
// trials (<8)", "1,200-4,000 in 3 of 5 trials (0 in 2)".
std::string trials_headline(const OverTrials& o);
// The line under it: "median 0, range 0-266,910; pooled 53,382 [bootstrap
// 0-160,146]; trials with any: 1 of 5 [0.5%-71.6%]", then the dispersion note.
std::string trials_detail(const OverTrials& o);
// "spread between trials 12,000x binomial" (and/or clients), or "".
std::string dispersion_note(const OverTrials& o);

}  // namespace rpclab::harness
