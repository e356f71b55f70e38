#include "harness/dependability/surface.h"
#include "harness/kit/data_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/kit/plot.h"
#include "harness/kit/text_table.h"
#include "sunrpc/sunrpc_settings.h"

namespace rpclab::harness {
namespace {

constexpr size_t kWidth = 118;  // as the other dependability tables

bool in_surface(const CellRecord& r) {
  return r.is("dependability") && r.ok() && r.cell.config.block.rfind("levy-surface", 0) == 0 &&
         r.cell.config.settings.get(kRetryTimeout).has_value();
}

std::string interval_text(int64_t ms) {
  return ms >= 1000 && ms % 100 == 0 ? fmt::format("{:g} s", static_cast<double>(ms) / 1000) : fmt::format("{} ms", ms);
}

std::string median_and_range(std::vector<double> v) {
  if (v.empty()) return "-";
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  if (v.front() == v.back()) return fixed(median, 1);
  return fmt::format("{} ({}-{})", fixed(median, 1), fixed(v.front(), 1), fixed(v.back(), 1));
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

bool SurfaceCell::undecided() const {
  if (trials == 0) return true;
  double p = static_cast<double>(onset_trials) / static_cast<double>(trials);
  return p >= 0.1 && p <= 0.9 && onset_ci95.high - onset_ci95.low > kSurfaceWidestInterval;
}

std::vector<SurfaceCell> surface_cells(const std::vector<CellRecord>& records) {
  std::vector<SurfaceCell> cells;
  for (const CellRecord& r : records) {
    if (!in_surface(r)) continue;
    SurfaceCell c;
    c.interval_ms = *r.cell.config.settings.get(kRetryTimeout);
    c.reply_cache = r.cell.config.settings.on(sunrpc::kReplyCache);
    c.hogs = r.cell.config.hogs;
    c.clients = r.clients;
    if (!r.dependability.episodes || r.dependability.episodes->onsets_per_trial.empty()) continue;  // no trial's onsets
    const std::vector<size_t>& onsets = r.dependability.episodes->onsets_per_trial;
    c.trials = onsets.size();
    c.onset_trials = static_cast<size_t>(std::count_if(onsets.begin(), onsets.end(), [](size_t n) { return n > 0; }));
    c.onset_ci95 = clopper_pearson_interval(c.onset_trials, c.trials);
    if (r.per_trial)
      for (const TrialRecord& t : *r.per_trial) {
        if (!t.ok()) continue;
        const std::optional<TrialEpisodes>& e = t.dependability.episodes;
        if (e && e->onsets > 0) c.errors_per_onset.push_back(e->errors_per_onset);
        const std::optional<TrialLoad>& l = t.dependability.load;
        if (l && l->server_wait_us_per_timeslice.value)
          c.server_wait_ms_per_timeslice.push_back(*l->server_wait_us_per_timeslice.value / 1000);
      }
    c.silent_per_million = r.dependability.silent_per_million.value_or(RatePerMillion{}).value;
    cells.push_back(c);
  }
  std::stable_sort(cells.begin(), cells.end(), [](const SurfaceCell& a, const SurfaceCell& b) {
    return std::tie(a.reply_cache, a.interval_ms, a.hogs) < std::tie(b.reply_cache, b.interval_ms, b.hogs);
  });
  return cells;
}

std::string surface_table(const std::vector<CellRecord>& records, const ReportOptions& o) {
  std::vector<SurfaceCell> cells = surface_cells(records);
  if (cells.empty()) return "";
  TextTable t({"retry", "cache", "load", "onset trials", "95% (exact)", "errors/onset: median (range)", "silent/M",
               "wait/slice ms"});
  size_t undecided = 0;
  std::string last;
  for (const SurfaceCell& c : cells) {
    std::string row = interval_text(c.interval_ms) + (c.reply_cache ? " +drc" : "");
    if (!last.empty() && row != last) t.rule();
    undecided += c.undecided();
    t.add({row == last ? "" : interval_text(c.interval_ms), row == last ? "" : c.reply_cache ? "on" : "off",
           std::to_string(c.hogs), fmt::format("{} of {}", c.onset_trials, c.trials) + (c.undecided() ? " *" : ""),
           fmt::format("{}-{}", fixed(c.onset_ci95.low, 2), fixed(c.onset_ci95.high, 2)),
           median_and_range(c.errors_per_onset), per_million(c.silent_per_million),
           c.server_wait_ms_per_timeslice.empty() ? "-" : fixed(mean(c.server_wait_ms_per_timeslice), 2)});
    last = row;
  }
  std::string title = fmt::format(
      "The retransmit interval x server load surface (sunrpc-udp, {} clients a cell): onset trials = in how many of "
      "the cell's independent trials a cascade started (at least one onset), with its exact (Clopper-Pearson) 95% "
      "interval over trials; errors/onset = error calls per onset in each trial that had one, median and range over "
      "those trials; silent/M = silent errors per 1,000,000 calls, pooled over the trials; wait/slice = the server's "
      "wait to run per timeslice (schedstat), the trials' mean. * = interval wider than {} while the proportion is "
      "between 0.1 and 0.9: more trials needed ({} such cells).",
      cells.front().clients,
      kSurfaceWidestInterval, undecided);
  return (o.markdown ? title : wrapped(title, kWidth)) + "\n\n" + (o.markdown ? t.render_markdown() : t.render(kWidth));
}

const std::vector<LevyLoadColumn>& levy_load_columns() {
  // His load averages ~0.1, 5, 10, 20, as the hogs rpclab runs.
  static const std::vector<LevyLoadColumn> columns = {
      {"load_0.1", 0}, {"load_5", 5}, {"load_10", 10}, {"load_20", 20}};
  return columns;
}

std::vector<std::pair<int, double>> levy_sun_rpc_per_million(const std::string& data_dir) {
  std::vector<std::pair<int, double>> out;
  for (const auto& row : read_csv(data_dir + "/levy1989-dependability.csv")) {
    if (!row.count("system") || row.at("system") != "Sun RPC (udp)") continue;
    for (const LevyLoadColumn& c : levy_load_columns()) {
      auto it = row.find(c.column);
      if (it != row.end() && !it->second.empty()) out.emplace_back(c.hogs, std::stod(it->second));
    }
  }
  return out;
}

std::vector<std::string> surface_plots(const std::vector<CellRecord>& records, const std::string& data_dir,
                                       const std::string& dir, process::CommandLog& log,
                                       std::vector<std::string>* notes) {
  std::vector<SurfaceCell> cells = surface_cells(records);
  cells.erase(std::remove_if(cells.begin(), cells.end(), [](const SurfaceCell& c) { return c.reply_cache; }),
              cells.end());
  if (cells.empty()) return {};
  HeatMap map;
  map.name = "surface-heatmap";
  map.title = "Silent errors per 1,000,000 calls: sunrpc-udp's retransmit interval x server load (Levy 1989 beside)";
  map.xlabel = "retransmit interval";
  map.ylabel = "CPU hogs on the server's CPU";
  map.cblabel = "silent errors per 1,000,000 calls (symlog)";
  std::vector<int64_t> intervals;
  std::vector<int> loads;
  for (const SurfaceCell& c : cells) {
    if (std::find(intervals.begin(), intervals.end(), c.interval_ms) == intervals.end()) intervals.push_back(c.interval_ms);
    if (std::find(loads.begin(), loads.end(), c.hogs) == loads.end()) loads.push_back(c.hogs);
  }
  std::vector<std::pair<int, double>> levy = levy_sun_rpc_per_million(data_dir);
  for (const auto& [load, v] : levy)
    if (std::find(loads.begin(), loads.end(), load) == loads.end()) loads.push_back(load);
  std::sort(intervals.begin(), intervals.end());
  std::sort(loads.begin(), loads.end());
  for (int64_t ms : intervals) map.xtics.push_back(interval_text(ms));
  for (int h : loads) map.ytics.push_back(std::to_string(h));
  auto y_of = [&](int h) { return static_cast<size_t>(std::find(loads.begin(), loads.end(), h) - loads.begin()); };
  for (const SurfaceCell& c : cells) {
    size_t x = static_cast<size_t>(std::find(intervals.begin(), intervals.end(), c.interval_ms) - intervals.begin());
    map.boxes.push_back({x, y_of(c.hogs), c.silent_per_million, per_million(c.silent_per_million)});
  }
  if (!levy.empty()) {
    map.xtics.push_back("Levy 1989");
    for (const auto& [load, v] : levy) map.boxes.push_back({intervals.size(), y_of(load), v, per_million(v)});
  }
  std::string why, png = draw_heatmap(map, dir, log, &why);
  if (png.empty()) {
    notes->push_back("plot skipped: " + why);
    return {};
  }
  return {png};
}

}  // namespace rpclab::harness
