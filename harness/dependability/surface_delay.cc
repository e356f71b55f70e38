#include "harness/dependability/surface_delay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "common/atomic_file.h"
#include "harness/kit/plot.h"
#include "server/journal_reader.h"
#include "transport/settings_table.h"

namespace rpclab::harness {
namespace {

namespace fs = std::filesystem;

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, i == 0 ? 0 : i - 1)];
}

double sl(double v) { return std::log10(1 + v); }

}  // namespace

std::vector<double> arrival_to_core_ms(const std::vector<journal::Record>& records) {
  std::vector<const journal::Record*> stamped;
  for (const journal::Record& r : records)
    if (r.kind == static_cast<uint8_t>(journal::RecordKind::kExecuted) && (r.known & journal::kKnowsKernelArrival))
      stamped.push_back(&r);
  std::vector<double> out;
  if (stamped.empty()) return out;
  int64_t offset = INT64_MIN;  // realtime - monotonic, as the shortest wait says
  for (const journal::Record* r : stamped) offset = std::max(offset, r->realtime_ns - r->monotonic_ns);
  for (const journal::Record* r : stamped)
    out.push_back(static_cast<double>(r->monotonic_ns + offset - r->realtime_ns) / 1e6);
  return out;
}

DelayQuantiles delay_quantiles(std::vector<double> waits_ms, double interval_ms) {
  std::sort(waits_ms.begin(), waits_ms.end());
  DelayQuantiles q;
  q.executions = waits_ms.size();
  q.p50_ms = quantile(waits_ms, 0.5);
  q.p90_ms = quantile(waits_ms, 0.9);
  q.p99_ms = quantile(waits_ms, 0.99);
  q.max_ms = waits_ms.empty() ? 0 : waits_ms.back();
  q.later_than_interval = static_cast<size_t>(waits_ms.end() - std::upper_bound(waits_ms.begin(), waits_ms.end(), interval_ms));
  return q;
}

std::vector<DelayPoint> delay_points(const std::vector<CellRecord>& records, const std::string& run_dir,
                                     std::vector<std::string>* notes) {
  std::vector<DelayPoint> points;
  for (const CellRecord& r : records) {
    const CellConfig& c = r.cell.config;
    auto retry = c.settings.get(kRetryTimeout);
    if (!r.is("dependability") || !r.ok() || c.block != "levy-surface" || !retry) continue;
    DelayPoint p;
    p.interval_ms = *retry;
    p.hogs = c.hogs;
    std::string cell = run_dir + "/cells/" + fs::path(r.cell_dir).filename().string();
    std::vector<double> waits;
    for (uint32_t trial = 1; trial <= r.trials.value_or(0); ++trial) {
      std::string journal = journal_in(fmt::format("{}/trial-{}", cell, trial));
      try {
        if (!fs::exists(journal)) continue;
        std::vector<double> w = arrival_to_core_ms(read_journal_records(journal));
        waits.insert(waits.end(), w.begin(), w.end());
        p.trials_read++;
      } catch (const std::exception& e) {
        notes->push_back(fmt::format("surface delay: {} trial {} skipped: {}", r.label, trial, e.what()));
      }
    }
    if (waits.empty()) continue;
    p.waits = delay_quantiles(waits, static_cast<double>(p.interval_ms));
    p.predicted_per_million = 1e6 * static_cast<double>(p.waits.later_than_interval) /
                              static_cast<double>(p.waits.executions);
    size_t onsets = 0;
    if (r.dependability.episodes)
      for (size_t n : r.dependability.episodes->onsets_per_trial) onsets += n;
    uint64_t calls = r.dependability.classes.value ? r.dependability.classes.value->calls : 0;
    p.observed_per_million = calls ? 1e6 * static_cast<double>(onsets) / static_cast<double>(calls) : 0;
    points.push_back(p);
  }
  return points;
}

std::vector<std::string> surface_delay_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                             process::CommandLog& log, std::vector<std::string>* notes) {
  std::vector<DelayPoint> points = delay_points(records, dir, notes);
  if (points.empty()) return {};
  std::string cells = "# retry_ms hogs trials_read executions p50_ms p90_ms p99_ms max_ms later_than_retry "
                      "predicted_onsets_per_M observed_onsets_per_M\n";
  PlotSpec plot{"surface-delay",
                "Onsets per 1,000,000 calls: observed against predicted from the server's wait (levy-surface)",
                "predicted: executions that waited longer than the retransmit interval, per 1,000,000 (log10(1 + x))",
                "observed: onsets per 1,000,000 calls (log10(1 + y))", XAxis::kMeasure};
  plot.style = "points";
  double top = 1;
  std::map<int, size_t> by_load;
  for (const DelayPoint& p : points) {
    cells += fmt::format("{} {} {} {} {:.3f} {:.3f} {:.3f} {:.3f} {} {:.1f} {:.1f}\n", p.interval_ms, p.hogs,
                         p.trials_read, p.waits.executions, p.waits.p50_ms, p.waits.p90_ms, p.waits.p99_ms,
                         p.waits.max_ms, p.waits.later_than_interval, p.predicted_per_million,
                         p.observed_per_million);
    if (!by_load.count(p.hogs)) {
      by_load[p.hogs] = plot.series.size();
      plot.series.push_back({fmt::format("load {}", p.hogs)});
    }
    Series& s = plot.series[by_load[p.hogs]];
    double x = sl(p.predicted_per_million), y = sl(p.observed_per_million);
    s.x.push_back(x), s.y.push_back(y), s.low.push_back(y), s.high.push_back(y);
    top = std::max({top, x, y});
  }
  Series diagonal{"observed = predicted"};
  for (double v : {0.0, top}) diagonal.x.push_back(v), diagonal.y.push_back(v), diagonal.low.push_back(v), diagonal.high.push_back(v);
  plot.series.push_back(diagonal);
  plot.diagonal_last = true;
  write_file_atomically(dir + "/surface-delay-cells.dat", cells);
  std::string why, png = draw(plot, dir, log, &why);
  if (png.empty()) {
    notes->push_back("plot skipped: " + why);
    return {};
  }
  return {png};
}

}  // namespace rpclab::harness
