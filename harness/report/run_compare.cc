#include "harness/report/run_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "harness/kit/stats.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

// A count of calls of one kind, of the calls a trial or cell judged.
struct Count {
  uint64_t events = 0, calls = 0;
};

// One figure compare tests: a proportion of calls (each ok trial's count
// and calls; the rates compared over trials, or the pooled counts with
// fewer than 2 trials a side), or a number each trial measures (compared
// by Welch over trials). A cell is compared on every figure both its
// records hold. The measures are rows; nothing outside this table knows
// which experiment has which.
struct Measure {
  const char* figure;
  const char* key;     // its name for --figures
  bool asked = false;  // asked about by default
  std::function<std::optional<Count>(const TrialRecord&)> count;     // a proportion, or
  std::function<std::vector<double>(const CellRecord&)> values;       // a number per ok trial
  std::function<std::optional<Count>(const CellRecord&)> cell_count;  // the proportion pooled in the cell
  // Or a proportion of trials, each trial one independent draw (events =
  // the trials where it happened, calls = the trials): Fisher's exact test
  // on those counts, the exact interval of each side shown.
  std::function<std::optional<Count>(const CellRecord&)> trials_with = nullptr;
  // The percentile whose noise this figure carries (NoiseRule), if any.
  const char* noise_percentile = nullptr;
};

Measure with_noise(Measure m, const char* percentile) {
  m.noise_percentile = percentile;
  return m;
}

template <typename Field>
Measure dependability_rate(const char* figure, const char* key, bool asked, Field field) {
  auto of = [field](const ClassCounts& c) { return Count{field(c), c.calls}; };
  return {figure, key, asked,
          [of](const TrialRecord& t) -> std::optional<Count> {
            if (!t.dependability.classes) return std::nullopt;
            return of(*t.dependability.classes);
          },
          nullptr,
          [of](const CellRecord& r) -> std::optional<Count> {
            if (!r.dependability.classes.has_value()) return std::nullopt;
            return of(*r.dependability.classes);
          }};
}

template <typename Field>
Measure nfs_rate(const char* figure, const char* key, bool asked, Field field) {
  auto of = [field](const NfsClassCounts& c) { return Count{field(c), c.judged()}; };
  return {figure, key, asked,
          [of](const TrialRecord& t) -> std::optional<Count> {
            if (!t.nfs.classes) return std::nullopt;
            return of(*t.nfs.classes);
          },
          nullptr,
          [of](const CellRecord& r) -> std::optional<Count> {
            if (!r.nfs.classes.has_value()) return std::nullopt;
            return of(*r.nfs.classes);
          }};
}

std::vector<TrialRecord> ok_per_trial(const CellRecord& r);

Measure per_trial(const char* figure, const char* key, bool asked,
                  std::function<std::optional<double>(const TrialRecord&)> value) {
  return {figure, key, asked, nullptr,
          [value](const CellRecord& r) {
            std::vector<double> v;
            for (const TrialRecord& t : ok_per_trial(r))
              if (auto x = value(t)) v.push_back(*x);
            return v;
          },
          nullptr};
}

std::optional<double> present(const MaybeNull<double>& v) { return v.has_value() ? std::optional<double>(*v) : std::nullopt; }

const std::vector<Measure>& measures() {
  static const std::vector<Measure> table = {
      dependability_rate("silent errors per 1M calls", "silent", true, [](const ClassCounts& c) { return c.silent(); }),
      dependability_rate("duplicate calls per 1M calls", "duplicate", true,
                         [](const ClassCounts& c) { return c.duplicate_calls; }),
      dependability_rate("indeterminate per 1M calls", "indeterminate", false,
                         [](const ClassCounts& c) { return c.indeterminate; }),
      dependability_rate("clean failures per 1M calls", "clean-failure", false,
                         [](const ClassCounts& c) { return c.clean_failure; }),
      // Whether a cascade starts is decided per trial (docs/results-format.md,
      // "Statistics"): two runs agree when these proportions do.
      {"trials with an onset", "onset-trials", false, nullptr, nullptr, nullptr,
       [](const CellRecord& r) -> std::optional<Count> {
         if (!r.dependability.episodes || r.dependability.episodes->onsets_per_trial.empty()) return std::nullopt;
         const std::vector<size_t>& onsets = r.dependability.episodes->onsets_per_trial;
         return Count{static_cast<uint64_t>(std::count_if(onsets.begin(), onsets.end(), [](size_t n) { return n > 0; })),
                      onsets.size()};
       }},
      per_trial("calls/s (dependability trials)", "calls-per-s", false,
                [](const TrialRecord& t) { return t.dependability.calls_per_s; }),
      {"mean latency us (trial means)", "mean-latency", false, nullptr,
       [](const CellRecord& r) { return r.speed.latency.trial_means_us.value_or(std::vector<double>{}); }, nullptr,
       nullptr, "p50"},
      with_noise(per_trial("p50 latency us", "p50", true,
                           [](const TrialRecord& t) { return present(t.speed.latency.p50_us); }),
                 "p50"),
      with_noise(per_trial("p99 latency us", "p99", false,
                           [](const TrialRecord& t) { return present(t.speed.latency.p99_us); }),
                 "p99"),
      per_trial("calls/s (speed trials)", "speed-calls-per-s", false,
                [](const TrialRecord& t) { return present(t.speed.latency.calls_per_s); }),
      nfs_rate("NFS replayed, told failure per 1M judged", "nfs-replayed", true,
               [](const NfsClassCounts& c) { return c.replayed_told_failure; }),
      nfs_rate("NFS lost per 1M judged", "nfs-lost", true, [](const NfsClassCounts& c) { return c.lost; }),
      nfs_rate("NFS indeterminate per 1M judged", "nfs-indeterminate", false,
               [](const NfsClassCounts& c) { return c.indeterminate; }),
  };
  return table;
}

std::vector<TrialRecord> ok_per_trial(const CellRecord& r) {
  std::vector<TrialRecord> ok;
  for (const TrialRecord& t : r.per_trial.value_or(std::vector<TrialRecord>{}))
    if (t.ok()) ok.push_back(t);
  return ok;
}

std::string per_million(uint64_t k, uint64_t n) {
  return n ? fmt::format("{} ({} of {})", fixed(1e6 * double(k) / double(n), 1), grouped(k), grouped(n)) : "no calls";
}

// A proportion: the rates over trials by permutation (trials are the
// unit: one late reply can make many calls of a client fail together),
// Fisher's exact test on the pooled counts with fewer than 2 trials a side.
bool compare_rate(const Measure& m, const CellRecord& a, const CellRecord& b, CellComparison& c) {
  std::optional<Count> pa = m.cell_count(a), pb = m.cell_count(b);
  if (!pa || !pb) return false;
  c.a = per_million(pa->events, pa->calls);
  c.b = per_million(pb->events, pb->calls);
  if (pa->calls) c.a_value = 1e6 * double(pa->events) / double(pa->calls);
  if (pb->calls) c.b_value = 1e6 * double(pb->events) / double(pb->calls);
  std::vector<double> ra, rb;
  for (const TrialRecord& t : ok_per_trial(a))
    if (auto k = m.count(t); k && k->calls) ra.push_back(double(k->events) / double(k->calls));
  for (const TrialRecord& t : ok_per_trial(b))
    if (auto k = m.count(t); k && k->calls) rb.push_back(double(k->events) / double(k->calls));
  for (double r : ra) c.a_trials.push_back(1e6 * r);
  for (double r : rb) c.b_trials.push_back(1e6 * r);
  c.tested = pa->calls > 0 && pb->calls > 0;
  if (!c.tested) {
    c.test = "not tested: a side made no calls";
  } else if (ra.size() >= 2 && rb.size() >= 2) {
    c.p = permutation_test_means(ra, rb);
    c.smallest_p = permutation_smallest_p(ra.size(), rb.size());
    c.trials_a = ra.size();
    c.trials_b = rb.size();
    c.test = fmt::format("permutation over trials ({} vs {})", ra.size(), rb.size());
  } else {
    c.p = fisher_exact_two_sided(pa->events, pa->calls, pb->events, pb->calls);
    c.test = "Fisher exact, pooled calls";
  }
  return true;
}

// A proportion of trials: k of n with its exact (Clopper-Pearson) 95%
// interval on each side, Fisher's exact test on the two (the trials are
// independent, unlike a trial's calls); the smallest p is that of the most
// extreme pair of counts the two trial numbers allow.
bool compare_trials(const Measure& m, const CellRecord& a, const CellRecord& b, CellComparison& c) {
  std::optional<Count> pa = m.trials_with(a), pb = m.trials_with(b);
  if (!pa || !pb) return false;
  auto text = [](const Count& k) {
    Interval ci = clopper_pearson_interval(k.events, k.calls);
    return fmt::format("{} of {} trials ({}-{})", k.events, k.calls, fixed(ci.low, 2), fixed(ci.high, 2));
  };
  c.a = text(*pa);
  c.b = text(*pb);
  c.a_value = double(pa->events) / double(pa->calls);
  c.b_value = double(pb->events) / double(pb->calls);
  c.trials_a = pa->calls;
  c.trials_b = pb->calls;
  c.tested = true;
  c.p = fisher_exact_two_sided(pa->events, pa->calls, pb->events, pb->calls);
  c.smallest_p = fisher_exact_two_sided(pa->calls, pa->calls, 0, pb->calls);
  c.test = fmt::format("Fisher exact over trials ({} vs {})", pa->calls, pb->calls);
  return true;
}

// A number each trial measures: Welch's t-test of the trials' values.
bool compare_values(const Measure& m, const CellRecord& a, const CellRecord& b, CellComparison& c) {
  std::vector<double> ta = m.values(a), tb = m.values(b);
  if (ta.empty() || tb.empty()) return false;
  c.a_value = summarize(ta).mean;
  c.b_value = summarize(tb).mean;
  c.a_trials = ta;
  c.b_trials = tb;
  c.a = fixed(*c.a_value, 1);
  c.b = fixed(*c.b_value, 1);
  c.trials_a = ta.size();
  c.trials_b = tb.size();
  c.tested = ta.size() >= 2 && tb.size() >= 2;
  if (!c.tested) {
    c.test = "not tested: Welch needs 2+ trials a side";
    return true;
  }
  c.p = welch_t_test(ta, tb).p;
  c.test = fmt::format("Welch over trials ({} vs {})", ta.size(), tb.size());
  return true;
}

// Every figure both records hold; a cell that did not run, its status.
std::vector<CellComparison> compare_cell(const CellRecord& a, const CellRecord& b, size_t cell, double alpha,
                                         const NoiseRule& noise) {
  std::vector<CellComparison> out;
  if (!a.ok() || !b.ok()) {
    CellComparison c;
    c.label = a.label;
    c.cell = cell;
    c.figure = "status";
    c.key = "status";
    c.a = a.status;
    c.b = b.status;
    c.test = "not tested: a cell did not run";
    return {c};
  }
  for (const Measure& m : measures()) {
    CellComparison c;
    c.label = a.label;
    c.cell = cell;
    c.figure = m.figure;
    c.key = m.key;
    bool held = m.trials_with ? compare_trials(m, a, b, c)
                : m.count         ? compare_rate(m, a, b, c)
                                  : compare_values(m, a, b, c);
    if (!held) continue;
    c.differs = c.tested && c.p < alpha;
    if (noise.noisy && m.noise_percentile) {
      c.a_noisy = noise.noisy(a, m.noise_percentile);
      c.b_noisy = noise.noisy(b, m.noise_percentile);
      if (c.a_noisy) c.a += noise.mark;
      if (c.b_noisy) c.b += noise.mark;
    }
    out.push_back(c);
  }
  if (out.empty()) {
    CellComparison c;
    c.label = a.label;
    c.cell = cell;
    c.test = "not tested: no figure both records hold";
    out.push_back(c);
  }
  return out;
}

std::map<std::string, const CellRecord*> by_identity(const std::vector<CellRecord>& records) {
  std::map<std::string, const CellRecord*> out;
  for (const CellRecord& r : records) out[cell_identity(r).dump()] = &r;
  return out;
}

}  // namespace

json CellComparison::to_json(double alpha) const {
  auto number = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return {{"label", label},
          {"figure", figure},
          {"key", key},
          {"a", number(a_value)},
          {"b", number(b_value)},
          {"change_pct", number(change_pct())},
          {"a_text", a},
          {"b_text", b},
          {"test", test},
          {"p", tested ? json(p) : json(nullptr)},
          {"smallest_p", number(smallest_p)},
          {"testable", testable(alpha)},
          {"differs", differs},
          {"a_noisy", a_noisy},
          {"b_noisy", b_noisy}};
}

std::string CellComparison::untestable_reason(double alpha) const {
  if (testable(alpha)) return "";
  if (key == "status") return a == b ? "in cells run in neither" : "in cells not run in one run";
  if (tested && smallest_p) return fmt::format("had {} vs {} trials (p >= {:.2g})", trials_a, trials_b, *smallest_p);
  if (trials_a && trials_b) return fmt::format("had {} vs {} trials", trials_a, trials_b);
  return key.empty() ? "held in neither record" : "had no calls";
}

const std::vector<std::string>& compare_figure_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const Measure& m : measures()) out.push_back(m.key);
    return out;
  }();
  return keys;
}

const std::vector<std::string>& default_asked_figures() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const Measure& m : measures())
      if (m.asked) out.push_back(m.key);
    return out;
  }();
  return keys;
}

size_t trials_to_test(double alpha) {
  size_t n = 2;
  while (permutation_smallest_p(n, n) >= alpha && n < 1000) ++n;
  return n;
}

size_t RunComparison::testable() const {
  return static_cast<size_t>(
      std::count_if(matched.begin(), matched.end(), [this](const CellComparison& c) { return c.testable(alpha); }));
}

std::vector<const CellComparison*> RunComparison::asked_untestable() const {
  std::vector<const CellComparison*> out;
  for (const CellComparison& c : matched) {
    bool asked_figure = std::find(asked.begin(), asked.end(), c.key) != asked.end();
    // A cell that did not run in one run hides every figure asked about;
    // skipped alike in both (no root for either), it hides no change.
    bool hides = c.key == "status" && c.a != c.b;
    if ((asked_figure || hides) && !c.testable(alpha)) out.push_back(&c);
  }
  return out;
}

bool RunComparison::cannot_tell() const {
  if (!asked_untestable().empty()) return true;
  for (const CellComparison& c : matched)
    if (std::find(asked.begin(), asked.end(), c.key) != asked.end() && c.testable(alpha)) return false;
  return true;
}

bool RunComparison::asked_differs() const {
  for (const CellComparison& c : matched)
    if (c.differs && std::find(asked.begin(), asked.end(), c.key) != asked.end()) return true;
  return false;
}

bool RunComparison::any_differs() const {
  for (const CellComparison& c : matched)
    if (c.differs) return true;
  return false;
}

size_t RunComparison::untestable() const {
  size_t n = 0;
  for (const CellComparison& c : matched) n += c.tested && !c.testable(alpha);
  return n;
}

bool RunComparison::nothing_testable() const {
  for (const CellComparison& c : matched)
    if (c.testable(alpha)) return false;
  return true;
}

json RunComparison::to_json() const {
  json figures = json::array();
  for (const CellComparison& c : matched) figures.push_back(c.to_json(alpha));
  json reasons = json::object();
  for (const CellComparison& c : matched)
    if (std::string why = c.untestable_reason(alpha); !why.empty()) reasons[why] = reasons.value(why, 0) + 1;
  return {{"alpha", alpha},
          {"cells", cells},
          {"differs", any_differs()},
          {"asked", asked},
          {"asked_differs", asked_differs()},
          {"cannot_tell", cannot_tell()},
          {"testable", testable()},
          {"not_testable", reasons},
          {"untestable", untestable()},
          {"nothing_testable", nothing_testable()},
          {"matched", figures},
          {"only_a", only_a},
          {"only_b", only_b},
          {"noise_note", noise_note}};
}

json cell_identity(const CellRecord& record) {
  CellConfig key = record.cell.config;
  key.calls_per_client = 0;
  key.trials = 1;
  key.warmup = 0;
  key.block = "";
  return key.to_json();
}

RunComparison compare_runs(const std::vector<CellRecord>& a, const std::vector<CellRecord>& b, double alpha,
                           const NoiseRule& noise) {
  RunComparison out;
  out.alpha = alpha;
  out.asked = default_asked_figures();
  std::map<std::string, const CellRecord*> in_b = by_identity(b), in_a = by_identity(a);
  for (const CellRecord& r : a) {
    auto it = in_b.find(cell_identity(r).dump());
    if (it == in_b.end()) {
      out.only_a.push_back(r.label);
      continue;
    }
    for (CellComparison& c : compare_cell(r, *it->second, out.cells, alpha, noise)) {
      if (c.a_noisy || c.b_noisy) out.noise_note = noise.note;
      out.matched.push_back(std::move(c));
    }
    const auto &ha = r.speed.latency.latency_histogram, &hb = it->second->speed.latency.latency_histogram;
    if (r.ok() && it->second->ok() && ha && hb) out.latency.push_back({r.label, out.cells, *ha, *hb});
    ++out.cells;
  }
  for (const CellRecord& r : b)
    if (!in_a.count(cell_identity(r).dump())) out.only_b.push_back(r.label);
  return out;
}

}  // namespace rpclab::harness
