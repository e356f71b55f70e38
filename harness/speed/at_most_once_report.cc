#include "harness/speed/at_most_once_report.h"

#include <fmt/format.h>

#include <map>

#include "harness/speed/speed_rows.h"
#include "harness/kit/stats.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

// A cell's settings without its at-most-once flag: the pair's key.
std::string pair_key(const CellRecord& r) {
  CellConfig cell = r.cell.config;
  cell.at_most_once = false;
  return cell.id();
}

bool measured(const CellRecord& r) {
  // a path's cells have their own table (paths_report.h)
  return r.is("speed") && r.ok() && r.cell.config.path.empty() && r.speed.latency.trial_means_us && r.speed.latency.p50_us;
}

// The server's CPU per call, "-" where the record has none.
std::string server_cpu(const CellRecord& r) {
  return r.speed.cpu_us_per_call ? fixed(r.speed.cpu_us_per_call->server, 1) : "-";
}

}  // namespace

std::string at_most_once_cost_table(const std::vector<CellRecord>& records, bool markdown) {
  // key -> (off, on), in the run's order
  std::map<std::string, std::pair<const CellRecord*, const CellRecord*>> pairs;
  std::vector<std::string> order;
  for (const CellRecord& r : records) {
    if (!measured(r)) continue;
    std::string key = pair_key(r);
    if (!pairs.count(key)) order.push_back(key);
    auto& [off, on] = pairs[key];
    (r.cell.config.at_most_once ? on : off) = &r;
  }
  TextTable t({"transport", "link", "p50 us off", "p50 us on", "on / off", "Welch p", "calls/s off", "calls/s on",
               "server CPU us off", "on"});
  for (const std::string& key : order) {
    auto [off, on] = pairs[key];
    if (!off || !on) continue;
    const LatencyFigures &l_off = off->speed.latency, &l_on = on->speed.latency;
    double p50_off = *l_off.p50_us, p50_on = *l_on.p50_us;
    WelchResult w = welch_t_test(*l_on.trial_means_us, *l_off.trial_means_us);
    t.add({variant(*off), off->topology + " " + off->connect, fixed(p50_off, 1), fixed(p50_on, 1),
           fixed(p50_on / p50_off, 3) + (w.significant(0.01) ? "*" : ""), w.p < 0.001 ? "<0.001" : fixed(w.p, 3),
           fixed(l_off.calls_per_s.value_or(0.0), 0), fixed(l_on.calls_per_s.value_or(0.0), 0), server_cpu(*off),
           server_cpu(*on)});
  }
  if (t.empty()) return "";
  return "What at-most-once costs a NEXT (the server's table and its journal, off and on, trials taking turns; "
         "on / off = the p50s' ratio,\n* = Welch p < 0.01 over the trial means; server CPU per call from its own counters):\n\n" +
         (markdown ? t.render_markdown() : t.render());
}

}  // namespace rpclab::harness
