#include "harness/speed/at_most_once_report.h"

#include <fmt/format.h>

#include <map>

#include "harness/speed/speed_rows.h"
#include "harness/kit/stats.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

// A cell's settings without its at-most-once flag: the pair's key.
std::string pair_key(const json& r) {
  json cell = r.value("cell", json::object());
  cell.erase("at_most_once");
  return cell.dump();
}

bool measured(const json& r) {
  return r.value("experiment", "") == "speed" && r.value("status", "") == "ok" && r.contains("trial_means_us") &&
         r.value("p50_us", json()).is_number();
}

// The server's CPU per call, "-" where the record has none.
std::string server_cpu(const json& r) {
  const json& v = r.value("cpu_us_per_call", json::object()).value("server", json());
  return v.is_number() ? fixed(v.get<double>(), 1) : "-";
}

}  // namespace

std::string at_most_once_cost_table(const std::vector<json>& records) {
  std::map<std::string, std::pair<const json*, const json*>> pairs;  // key -> (off, on), in the run's order
  std::vector<std::string> order;
  for (const json& r : records) {
    if (!measured(r)) continue;
    std::string key = pair_key(r);
    if (!pairs.count(key)) order.push_back(key);
    auto& [off, on] = pairs[key];
    (r.value("cell", json::object()).value("at_most_once", false) ? on : off) = &r;
  }
  TextTable t({"transport", "link", "p50 us off", "p50 us on", "on / off", "Welch p", "calls/s off", "calls/s on",
               "server CPU us off", "on"});
  for (const std::string& key : order) {
    auto [off, on] = pairs[key];
    if (!off || !on) continue;
    double p50_off = off->at("p50_us").get<double>(), p50_on = on->at("p50_us").get<double>();
    WelchResult w = welch_t_test(on->at("trial_means_us").get<std::vector<double>>(),
                                 off->at("trial_means_us").get<std::vector<double>>());
    t.add({variant(*off), off->value("topology", "") + " " + off->value("connect", ""), fixed(p50_off, 1),
           fixed(p50_on, 1), fixed(p50_on / p50_off, 3) + (w.significant(0.01) ? "*" : ""),
           w.p < 0.001 ? "<0.001" : fixed(w.p, 3), fixed(off->value("calls_per_s", 0.0), 0),
           fixed(on->value("calls_per_s", 0.0), 0), server_cpu(*off), server_cpu(*on)});
  }
  if (t.empty()) return "";
  return "What at-most-once costs a NEXT (the server's table and its journal, off and on, trials taking turns; "
         "on / off = the p50s' ratio,\n* = Welch p < 0.01 over the trial means; server CPU per call from its own counters):\n\n" +
         t.render();
}

}  // namespace rpclab::harness
