// A figure over N independent trials of one cell (Kapfhammer's repeated
// trials, seed 004): in how many trials it happened at all, the spread of
// the per-trial rates, a bootstrap interval of the pooled rate, and whether
// trials or clients differ far more than chance would make them differ.
// The methods and why: docs/results-format.md, "Statistics".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/kit/stats.h"
#include "harness/record/over_trials.h"
#include "harness/record/trial_counts.h"

namespace rpclab::harness {

// Groups (clients or trials) of counts in strata that each have their own
// rate; exposed for tests and for figures other than the ones below.
struct GroupCount {
  uint64_t events = 0;
  uint64_t calls = 0;
};
Dispersion binomial_dispersion(const std::vector<std::vector<GroupCount>>& strata);

BootstrapInterval cluster_bootstrap(const std::vector<std::vector<GroupCount>>& trials,
                                    uint64_t seed = kBootstrapSeed, int resamples = kBootstrapResamples);

OverTrials over_trials(const std::vector<TrialCounts>& trials, ClientCount events, uint64_t seed = kBootstrapSeed,
                       int resamples = kBootstrapResamples);

// Below this many trials a bootstrap over trials means little (it can
// only reshuffle a handful of values; with few clusters a cluster
// bootstrap is too narrow: Cameron, Gelbach and Miller, Rev. Econ. Stat.
// 2008): the spread of the pooled rate shown is then the trials' range.
inline constexpr size_t kLeastBootstrapTrials = 10;

// The spread shown around the pooled rate: the bootstrap interval over
// trials, or, below kLeastBootstrapTrials, the range of the trials'
// rates. `name` is "bootstrap" or "range".
Interval pooled_spread(const OverTrials& o, std::string* name = nullptr);

// The cell's headline: "266,910 in 1 of 5 trials (0 in 4)", "0 in all 5
// trials (<8)", "1,200-4,000 in 3 of 5 trials (0 in 2)".
std::string trials_headline(const OverTrials& o);
// The line under it: "median 0, range 0-266,910; pooled 53,382 [bootstrap
// 0-160,146]; trials with any: 1 of 5 [0.5%-71.6%]", then the dispersion note.
std::string trials_detail(const OverTrials& o);
// "spread between trials 12,000x binomial" (and/or clients), or "".
std::string dispersion_note(const OverTrials& o);

}  // namespace rpclab::harness
