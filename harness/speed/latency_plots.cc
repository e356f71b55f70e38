#include "harness/speed/latency_plots.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "harness/speed/speed_rows.h"

namespace rpclab::harness {
namespace {

bool drawn_cell(const CellRecord& r) {
  const CellConfig& c = r.cell.config;
  return r.is("speed") && r.ok() && !r.speed.calibration.value_or(false) &&
         c.topology == netem::TopologyKind::kLoopback && c.connect == ConnectMode::kPersistent && c.clients == 1 &&
         r.speed.latency.latency_histogram && echo_run(r);  // ECHO only
}

// The CDF's points are the buckets' upper edges. The histogram is the
// outline of its buckets, drawn with steps through their edges: up at the
// first bucket's lower edge, across each bucket at its share, down to 0
// across empty buckets and after the last one. (histeps would place the
// edges itself, halfway between listed buckets on a linear scale, and the
// outer ones past the frame of a log axis.)
void add_distribution(const LatencyHistogram& h, const std::string& title, PlotSpec& cdf, PlotSpec& hist) {
  const std::vector<double>& low = h.low_us;
  std::vector<double> counts(h.counts.begin(), h.counts.end());
  double total = 0, seen = 0, step = std::pow(10.0, 1.0 / h.buckets_per_decade);
  for (double c : counts) total += c;
  if (total <= 0 || low.empty() || low.size() != counts.size()) return;
  Series c{title}, s{title};
  auto add = [](Series& series, double x, double y) {
    series.x.push_back(x), series.y.push_back(y), series.low.push_back(y), series.high.push_back(y);
  };
  add(s, low.front(), 0);
  for (size_t i = 0; i < low.size(); ++i) {
    double up = low[i] * step;
    seen += counts[i];
    add(c, up, seen / total);
    add(s, low[i], counts[i] / total);
    // Down at the last bucket's upper edge, and before a gap (empty buckets are not listed).
    if (i + 1 == low.size() || low[i + 1] > up * (1 + 1e-9)) add(s, up, 0);
  }
  cdf.series.push_back(c);
  hist.series.push_back(s);
}

}  // namespace

std::vector<PlotSpec> latency_distribution_specs(const std::vector<CellRecord>& records) {
  std::map<size_t, std::pair<PlotSpec, PlotSpec>> by_size;
  for (const CellRecord& r : records) {
    if (!drawn_cell(r)) continue;
    size_t size = r.cell.config.size;
    auto [it, added] = by_size.try_emplace(size);
    if (added) {
      std::string label = size_label(size);
      std::string words = size_words(size);
      it->second.first = {"latency-cdf-" + label, "Latency CDF, " + words + " (loopback, persistent, 1 client)",
                          "microseconds per call (log)", "fraction of calls at or below", XAxis::kMeasure, true};
      it->second.second = {"latency-histogram-" + label,
                           "Latency histogram, " + words + " (loopback, persistent, 1 client; 10 buckets per decade)",
                           "microseconds per call (log)", "fraction of calls in the bucket", XAxis::kMeasure, true};
      it->second.first.style = "steps";
      it->second.second.style = "steps";
    }
    std::string title = series_title(variant(r), noisy_at(r, "p50") ? std::vector<size_t>{size} : std::vector<size_t>{});
    add_distribution(*r.speed.latency.latency_histogram, title, it->second.first, it->second.second);
  }
  std::vector<PlotSpec> specs;
  for (auto& [size, pair] : by_size) {
    if (pair.first.series.empty()) continue;
    specs.push_back(pair.first);
    specs.push_back(pair.second);
  }
  return specs;
}

}  // namespace rpclab::harness
