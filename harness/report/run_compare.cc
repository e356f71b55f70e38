#include "harness/report/run_compare.h"

#include <fmt/format.h>

#include <map>

#include "harness/kit/stats.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

// Each ok trial's silent errors per call.
std::vector<double> trial_rates(const CellRecord& r) {
  std::vector<double> rates;
  for (const TrialRecord& t : r.per_trial.value_or(std::vector<TrialRecord>{})) {
    const std::optional<ClassCounts>& c = t.dependability.classes;
    if (t.ok() && c && c->calls > 0) rates.push_back(double(c->silent()) / double(c->calls));
  }
  return rates;
}

std::string per_million(uint64_t k, uint64_t n) {
  return n ? fmt::format("{} ({} of {})", fixed(1e6 * double(k) / double(n), 1), grouped(k), grouped(n)) : "no calls";
}

void compare_dependability(const CellRecord& a, const CellRecord& b, CellComparison& c) {
  c.figure = "silent errors per 1M calls";
  const ClassCounts &ca = *a.dependability.classes, &cb = *b.dependability.classes;
  uint64_t ka = ca.silent(), kb = cb.silent();
  uint64_t na = ca.calls, nb = cb.calls;
  c.a = per_million(ka, na);
  c.b = per_million(kb, nb);
  if (na) c.a_value = 1e6 * double(ka) / double(na);
  if (nb) c.b_value = 1e6 * double(kb) / double(nb);
  std::vector<double> ra = trial_rates(a), rb = trial_rates(b);
  c.tested = na > 0 && nb > 0;
  if (!c.tested) {
    c.test = "not tested: a side made no calls";
  } else if (ra.size() >= 2 && rb.size() >= 2) {
    c.p = permutation_test_means(ra, rb);
    c.smallest_p = permutation_smallest_p(ra.size(), rb.size());
    c.trials_a = ra.size();
    c.trials_b = rb.size();
    c.test = fmt::format("permutation over trials ({} vs {})", ra.size(), rb.size());
  } else {
    c.p = fisher_exact_two_sided(ka, na, kb, nb);
    c.test = "Fisher exact, pooled calls";
  }
}

void compare_speed(const CellRecord& a, const CellRecord& b, CellComparison& c) {
  c.figure = "mean latency us (trial means)";
  const LatencyFigures &la = a.speed.latency, &lb = b.speed.latency;
  const std::vector<double> &ta = *la.trial_means_us, &tb = *lb.trial_means_us;
  c.a = fmt::format("{} (p50 {})", fixed(summarize(ta).mean, 1), fixed(la.p50_us.value_or(0.0), 1));
  c.b = fmt::format("{} (p50 {})", fixed(summarize(tb).mean, 1), fixed(lb.p50_us.value_or(0.0), 1));
  if (!ta.empty()) c.a_value = summarize(ta).mean;
  if (!tb.empty()) c.b_value = summarize(tb).mean;
  c.trials_a = ta.size();
  c.trials_b = tb.size();
  c.tested = ta.size() >= 2 && tb.size() >= 2;
  if (!c.tested) {
    c.test = "not tested: Welch needs 2+ trials a side";
    return;
  }
  c.p = welch_t_test(ta, tb).p;
  c.test = fmt::format("Welch over trials ({} vs {})", ta.size(), tb.size());
}

CellComparison compare_cell(const CellRecord& a, const CellRecord& b, double alpha) {
  CellComparison c;
  c.label = a.label;
  if (!a.ok() || !b.ok()) {
    c.figure = "status";
    c.a = a.status;
    c.b = b.status;
    c.test = "not tested: a cell did not run";
    return c;
  }
  if (a.dependability.classes && b.dependability.classes) compare_dependability(a, b, c);
  else if (a.speed.latency.trial_means_us && b.speed.latency.trial_means_us) compare_speed(a, b, c);
  else c.test = "not tested: no figure both records hold";
  c.differs = c.tested && c.p < alpha;
  return c;
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
          {"a", number(a_value)},
          {"b", number(b_value)},
          {"a_text", a},
          {"b_text", b},
          {"test", test},
          {"p", tested ? json(p) : json(nullptr)},
          {"smallest_p", number(smallest_p)},
          {"testable", testable(alpha)},
          {"differs", differs}};
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
  json cells = json::array();
  for (const CellComparison& c : matched) cells.push_back(c.to_json(alpha));
  return {{"alpha", alpha},         {"differs", any_differs()}, {"untestable", untestable()},
          {"nothing_testable", nothing_testable()}, {"matched", cells},  {"only_a", only_a},
          {"only_b", only_b}};
}

json cell_identity(const CellRecord& record) {
  CellConfig key = record.cell.config;
  key.calls_per_client = 0;
  key.trials = 1;
  key.warmup = 0;
  key.block = "";
  return key.to_json();
}

RunComparison compare_runs(const std::vector<CellRecord>& a, const std::vector<CellRecord>& b, double alpha) {
  RunComparison out;
  out.alpha = alpha;
  std::map<std::string, const CellRecord*> in_b = by_identity(b), in_a = by_identity(a);
  for (const CellRecord& r : a) {
    auto it = in_b.find(cell_identity(r).dump());
    if (it == in_b.end()) out.only_a.push_back(r.label);
    else out.matched.push_back(compare_cell(r, *it->second, alpha));
  }
  for (const CellRecord& r : b)
    if (!in_a.count(cell_identity(r).dump())) out.only_b.push_back(r.label);
  return out;
}

}  // namespace rpclab::harness
