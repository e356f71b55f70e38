// Two runs cell by cell (`rpclab compare`): cells matched on their
// settings, each figure both records of a pair hold side by side, with
// the change in percent and a test of whether they differ, and the cells
// only one run has.
//
// The figures and tests (docs/guide.md, "Comparing two runs"):
// - proportions of calls (dependability: silent errors, duplicate calls,
//   indeterminate, clean failures; NFS: replayed and told failure, lost,
//   indeterminate): with at least 2 ok trials on each side, a permutation
//   test of the per-trial rates, which treats a trial, not a call, as the
//   unit, since one late reply can make many calls of a client fail
//   together; with fewer, Fisher's exact test on the pooled counts;
// - numbers each trial measures (calls/s; speed: mean, p50 and p99
//   latency): Welch's t-test of the trials' values (2+ trials a side).
// Each figure is tested at alpha on its own: with several figures a cell,
// one of them differs by chance more often than alpha.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/cell_record.h"
#include "harness/run/experiment.h"

namespace rpclab::harness {

// One figure of one matched cell.
struct CellComparison {
  std::string label;
  size_t cell = 0;      // which matched cell, from 0
  std::string figure;   // what is compared, e.g. "silent errors per 1M calls"
  std::string key;      // its short name for --figures, e.g. "silent"; "status" for a cell that did not run
  std::string a, b;     // the two figures as text
  std::optional<double> a_value, b_value;  // the same as numbers (none for a cell that did not run)
  // Each ok trial's figure (a proportion per 1M calls, or the number it
  // measured): the spread compare.html draws around a_value and b_value.
  std::vector<double> a_trials, b_trials;
  std::string test;     // the test used, or why none could be
  double p = 1;
  bool tested = false;
  // The smallest p the test could give these trials, when it is known (the
  // permutation test); at or above alpha the cell is untestable: no data
  // of that many trials could differ.
  std::optional<double> smallest_p;
  size_t trials_a = 0, trials_b = 0;
  bool differs = false;  // tested and p < alpha
  // The figure is noise in that run (the experiment's NoiseRule): `a`
  // and `b` carry its mark.
  bool a_noisy = false, b_noisy = false;
  bool testable(double alpha) const { return tested && (!smallest_p || *smallest_p < alpha); }
  // Why no result could have shown it to differ, after a count ("had 3 vs
  // 3 trials (p >= 0.1)", "in cells not run in one run"), "" when testable.
  std::string untestable_reason(double alpha) const;
  // B against A in percent; none when A is 0 or either is missing.
  std::optional<double> change_pct() const {
    if (!a_value || !b_value || *a_value == 0) return std::nullopt;
    return 100 * (*b_value - *a_value) / *a_value;
  }
  nlohmann::json to_json(double alpha) const;
};

// A matched cell's latency distributions (speed cells that kept a
// histogram), for compare.html's overlaid CDFs.
struct MatchedLatency {
  std::string label;
  size_t cell = 0;
  LatencyHistogram a, b;
};

struct RunComparison {
  double alpha = 0.01;
  // The figures (keys) the user asked about: when one of them differs,
  // compare exits 1; else when one cannot be tested in a matched cell that
  // ran in either run, or none was tested at all, it cannot tell (exit 3).
  // The others are shown and counted, and decide nothing.
  std::vector<std::string> asked;
  size_t cells = 0;                     // cells matched
  std::vector<MatchedLatency> latency;  // matched cells both of whose records hold a histogram
  std::vector<CellComparison> matched;  // every figure of each, cell by cell
  std::vector<std::string> only_a, only_b;  // labels of cells the other run lacks
  std::string noise_note;  // the NoiseRule's note when a figure carries its mark, else 
  bool any_differs() const;
  bool asked_differs() const;  // a figure asked about differs: exit 1
  size_t untestable() const;  // figures no result could have shown to differ
  bool nothing_testable() const;  // no matched cell could have been shown to differ
  size_t testable() const;        // figures a result could have shown to differ
  // The figures asked about that no result could have shown to differ (a
  // cell skipped alike in both runs is not one); cannot_tell() when there
  // is one, or no asked figure was tested at all.
  std::vector<const CellComparison*> asked_untestable() const;
  bool cannot_tell() const;
  nlohmann::json to_json() const;
};

// The figures compare can test, by key, in the order it shows them, and
// those it asks about by default: the silent and duplicate rates (and
// their NFS counterparts), and a speed run's p50.
const std::vector<std::string>& compare_figure_keys();
const std::vector<std::string>& default_asked_figures();

// The fewest ok trials a side at which the permutation test over trials
// (and Fisher's over trials) can give a p below alpha: 5 at 0.01.
size_t trials_to_test(double alpha);

// The settings a cell is matched on: its configuration, with what sets only
// how much it measures (calls, trials, warm-up) and its block name cleared.
nlohmann::json cell_identity(const CellRecord& record);

// `noise`: the experiment's rule for figures that are noise (their text
// marked, as in its tables; none when it has no rule).
RunComparison compare_runs(const std::vector<CellRecord>& a, const std::vector<CellRecord>& b, double alpha,
                           const NoiseRule& noise = {});

}  // namespace rpclab::harness
