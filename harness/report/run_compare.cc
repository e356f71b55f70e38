#include "harness/report/run_compare.h"

#include <fmt/format.h>

#include <map>

#include "harness/kit/stats.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

uint64_t silent(const json& classes) {
  return classes.value("silent_loss", uint64_t{0}) + classes.value("silent_duplicates", uint64_t{0});
}

// Each ok trial's silent errors per call.
std::vector<double> trial_rates(const json& r) {
  std::vector<double> rates;
  for (const json& t : r.value("per_trial", json::array()))
    if (t.value("status", "") == "ok" && t.value("calls", uint64_t{0}) > 0)
      rates.push_back(double(silent(t.value("classes", json::object()))) / double(t.value("calls", uint64_t{0})));
  return rates;
}

std::string per_million(uint64_t k, uint64_t n) {
  return n ? fmt::format("{} ({} of {})", fixed(1e6 * double(k) / double(n), 1), grouped(k), grouped(n)) : "no calls";
}

void compare_dependability(const json& a, const json& b, CellComparison& c) {
  c.figure = "silent errors per 1M calls";
  uint64_t ka = silent(a.at("classes")), kb = silent(b.at("classes"));
  uint64_t na = a.value("calls", uint64_t{0}), nb = b.value("calls", uint64_t{0});
  c.a = per_million(ka, na);
  c.b = per_million(kb, nb);
  std::vector<double> ra = trial_rates(a), rb = trial_rates(b);
  c.tested = na > 0 && nb > 0;
  if (!c.tested) {
    c.test = "not tested: a side made no calls";
  } else if (ra.size() >= 2 && rb.size() >= 2) {
    c.p = permutation_test_means(ra, rb);
    c.test = fmt::format("permutation over trials ({} vs {})", ra.size(), rb.size());
  } else {
    c.p = fisher_exact_two_sided(ka, na, kb, nb);
    c.test = "Fisher exact, pooled calls";
  }
}

void compare_speed(const json& a, const json& b, CellComparison& c) {
  c.figure = "mean latency us (trial means)";
  std::vector<double> ta = a.value("trial_means_us", std::vector<double>()),
                      tb = b.value("trial_means_us", std::vector<double>());
  c.a = fmt::format("{} (p50 {})", fixed(summarize(ta).mean, 1), fixed(a.value("p50_us", 0.0), 1));
  c.b = fmt::format("{} (p50 {})", fixed(summarize(tb).mean, 1), fixed(b.value("p50_us", 0.0), 1));
  c.tested = ta.size() >= 2 && tb.size() >= 2;
  if (!c.tested) {
    c.test = "not tested: Welch needs 2+ trials a side";
    return;
  }
  c.p = welch_t_test(ta, tb).p;
  c.test = fmt::format("Welch over trials ({} vs {})", ta.size(), tb.size());
}

CellComparison compare_cell(const json& a, const json& b, double alpha) {
  CellComparison c;
  c.label = a.value("label", std::string());
  if (a.value("status", "") != "ok" || b.value("status", "") != "ok") {
    c.figure = "status";
    c.a = a.value("status", std::string());
    c.b = b.value("status", std::string());
    c.test = "not tested: a cell did not run";
    return c;
  }
  if (a.contains("classes") && b.contains("classes")) compare_dependability(a, b, c);
  else if (a.contains("trial_means_us") && b.contains("trial_means_us")) compare_speed(a, b, c);
  else c.test = "not tested: no figure both records hold";
  c.differs = c.tested && c.p < alpha;
  return c;
}

std::map<std::string, const json*> by_identity(const std::vector<json>& records) {
  std::map<std::string, const json*> out;
  for (const json& r : records) out[cell_identity(r).dump()] = &r;
  return out;
}

}  // namespace

json CellComparison::to_json() const {
  return {{"label", label}, {"figure", figure}, {"a", a},        {"b", b},
          {"test", test},   {"p", tested ? json(p) : json(nullptr)}, {"differs", differs}};
}

bool RunComparison::any_differs() const {
  for (const CellComparison& c : matched)
    if (c.differs) return true;
  return false;
}

json RunComparison::to_json() const {
  json cells = json::array();
  for (const CellComparison& c : matched) cells.push_back(c.to_json());
  return {{"alpha", alpha}, {"differs", any_differs()}, {"matched", cells}, {"only_a", only_a}, {"only_b", only_b}};
}

json cell_identity(const json& record) {
  json key = record.value("cell", json::object());
  for (const char* k : {"calls_per_client", "trials", "warmup", "block"}) key.erase(k);
  return key;
}

RunComparison compare_runs(const std::vector<json>& a, const std::vector<json>& b, double alpha) {
  RunComparison out;
  out.alpha = alpha;
  std::map<std::string, const json*> in_b = by_identity(b), in_a = by_identity(a);
  for (const json& r : a) {
    auto it = in_b.find(cell_identity(r).dump());
    if (it == in_b.end()) out.only_a.push_back(r.value("label", std::string()));
    else out.matched.push_back(compare_cell(r, *it->second, alpha));
  }
  for (const json& r : b)
    if (!in_a.count(cell_identity(r).dump())) out.only_b.push_back(r.value("label", std::string()));
  return out;
}

}  // namespace rpclab::harness
