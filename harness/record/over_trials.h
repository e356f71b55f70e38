// A figure over the N independent trials of one dependability cell, as its
// record holds it (`over_trials.silent`, `.duplicate_calls`,
// `.extra_executions`): in how many trials it happened, the spread of the
// per-trial rates, a bootstrap interval of the pooled rate, and whether
// trials or clients differ far more than chance would make them differ.
// harness/run/trial_stats.h computes them; the methods and why:
// docs/results-format.md, "Statistics".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/kit/stats.h"

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
};

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
};

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
};

// The record's `over_trials`: the three figures the views show.
struct OverTrialsFigures {
  OverTrials silent;
  OverTrials duplicate_calls;
  OverTrials extra_executions;
};

void to_json(nlohmann::json& j, const Interval& i);  // [low, high]
void from_json(const nlohmann::json& j, Interval& i);
void to_json(nlohmann::json& j, const Dispersion& d);
void from_json(const nlohmann::json& j, Dispersion& d);
void to_json(nlohmann::json& j, const BootstrapInterval& b);
void from_json(const nlohmann::json& j, BootstrapInterval& b);
void to_json(nlohmann::json& j, const OverTrials& o);
void from_json(const nlohmann::json& j, OverTrials& o);
void to_json(nlohmann::json& j, const OverTrialsFigures& o);
void from_json(const nlohmann::json& j, OverTrialsFigures& o);

}  // namespace rpclab::harness
