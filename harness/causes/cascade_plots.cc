#include "harness/causes/cascade_plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "server/journal_reader.h"
#include "harness/causes/attribution.h"

namespace rpclab::harness {
namespace {

namespace fs = std::filesystem;

constexpr size_t kPoints = 300;
constexpr size_t kMostClients = 8;  // more lines than this are unreadable

}  // namespace

std::vector<Series> extra_executions_over_time(const std::string& journal_path, size_t points) {
  std::map<uint32_t, std::vector<int64_t>> extras;  // client -> times of its extra executions
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const journal::Record& r : read_journal_records(journal_path)) {
    if (r.kind != static_cast<uint8_t>(journal::RecordKind::kExecuted)) continue;
    first = std::min(first, r.realtime_ns);
    last = std::max(last, r.realtime_ns);
    std::vector<int64_t>& mine = extras[r.client_id];
    if (r.times_executed > 1) mine.push_back(r.realtime_ns);
  }
  std::vector<Series> out;
  if (first > last || points < 2) return out;
  for (auto& [client, times] : extras) {
    std::sort(times.begin(), times.end());
    Series s{fmt::format("client {}", client)};
    for (size_t i = 0; i < points; ++i) {
      int64_t at = first + static_cast<int64_t>(double(last - first) * double(i) / double(points - 1));
      double y = double(std::upper_bound(times.begin(), times.end(), at) - times.begin());
      s.x.push_back(double(at - first) / 1e9);
      s.y.push_back(y), s.low.push_back(y), s.high.push_back(y);
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> cascade_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                       process::CommandLog& log, std::vector<std::string>* notes) {
  std::vector<std::string> pngs;
  for (const CellRecord& r : records) {
    if (!r.is("dependability") || !r.ok()) continue;
    const MaybeNull<CausesRecord>& causes = r.dependability.causes;
    if (!causes.has_value() || !causes->cascades || causes->cascades->count == 0) continue;
    // The cell's folder under this run folder, wherever the run was made.
    std::string folder = fs::path(r.cell_dir).filename().string();
    std::string cell = dir + "/cells/" + folder;
    for (uint32_t trial = 1; trial <= r.trials.value_or(0); ++trial) {
      std::string journal = journal_in(fmt::format("{}/trial-{}", cell, trial));
      std::vector<Series> series;
      try {
        if (fs::exists(journal)) series = extra_executions_over_time(journal, kPoints);
      } catch (const std::exception& e) {
        notes->push_back(fmt::format("cascade plot of {} trial {} skipped: {}", folder, trial, e.what()));
        continue;
      }
      auto ran_twice = [](const Series& s) { return s.y.back() > 0; };
      if (std::none_of(series.begin(), series.end(), ran_twice)) continue;
      std::string shown = series.size() > kMostClients ? fmt::format(", first {} of {} clients", kMostClients,
                                                                     series.size()) : "";
      series.resize(std::min(series.size(), kMostClients));
      PlotSpec plot{fmt::format("cascades-{}", folder.substr(0, 3)),
                    fmt::format("Extra executions over time: {}, trial {}{}", r.label, trial, shown),
                    "seconds since the trial's first execution",
                    "executions beyond each call's first, cumulative (server's clock)"};
      plot.style = "lines";
      plot.series = std::move(series);
      std::string why, png = draw(plot, dir, log, &why);
      if (!png.empty()) pngs.push_back(png);
      else notes->push_back("plot skipped: " + why);
      break;
    }
  }
  return pngs;
}

}  // namespace rpclab::harness
