#include "harness/dependability/dependability_plots.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "harness/causes/cascade_plots.h"
#include "harness/dependability/dependability_report.h"
#include "harness/dependability/surface.h"
#include "harness/dependability/surface_delay.h"
#include "harness/run/experiment_run.h"
#include "harness/run/trial_stats.h"
#include "harness/kit/plot.h"

namespace rpclab::harness {
namespace {

// The pooled rate, its bars from the trials (pooled_spread: a bootstrap
// over trials, or their range when there are few): calls in one trial are
// not independent, so no interval over calls. A record from before trials
// gets no bars.
void add_point(Series& s, double x, const CellRecord& r) {
  const DependabilityCell& d = r.dependability;
  double value = d.silent_per_million ? d.silent_per_million->value : 0;
  Interval bars{value, value};
  if (d.over_trials && d.over_trials->silent.trials > 0) {
    value = d.over_trials->silent.pooled.value;
    bars = pooled_spread(d.over_trials->silent);
  }
  s.x.push_back(x);
  s.y.push_back(value);
  s.low.push_back(bars.low);
  s.high.push_back(bars.high);
}

std::string y_label() {
  return fmt::format("silent errors per 1,000,000 calls (symlog; bars: 95% bootstrap over trials, their range below {})",
                     kLeastBootstrapTrials);
}

}  // namespace

std::vector<std::string> dependability_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                             process::CommandLog& log, std::vector<std::string>* notes) {
  PlotSpec by_load{"silent-vs-load", "Silent errors vs server load (no network faults)", "CPU hogs on the server's CPU",
                   y_label(), XAxis::kCount};
  PlotSpec by_faults{"silent-vs-faults", "Silent errors vs loss and duplication (load 0, two-host link)", "",
                     y_label(), XAxis::kCategory};
  by_load.symlogy = by_faults.symlogy = true;
  std::map<std::string, size_t> load_series, fault_series;
  std::map<std::string, std::vector<std::string>> prices;  // by variant, in column order
  for (const CellRecord& r : records) {
    if (!r.is("dependability") || !r.ok()) continue;
    if (has_events(r)) continue;  // the failures table shows them; neither axis here is theirs
    std::string variant = row_variant(r);
    if (!has_faults(r)) {
      if (!load_series.count(variant)) {
        load_series[variant] = by_load.series.size();
        by_load.series.push_back({variant});
      }
      add_point(by_load.series[load_series[variant]], r.cell.config.hogs, r);
    } else if (r.cell.config.hogs == 0) {
      const netem::FaultSpec& f = r.cell.config.faults;
      std::string tic = fmt::format("loss {}/dup {}", f.loss_pct, f.dup_pct);
      auto it = std::find(by_faults.xtics.begin(), by_faults.xtics.end(), tic);
      double x = static_cast<double>(it - by_faults.xtics.begin());
      if (it == by_faults.xtics.end()) by_faults.xtics.push_back(tic);
      if (!fault_series.count(variant)) {
        fault_series[variant] = by_faults.series.size();
        by_faults.series.push_back({variant});
      }
      add_point(by_faults.series[fault_series[variant]], x, r);
      if (std::string price = told_failed_share(r); !price.empty()) prices[variant].push_back(price);
    }
  }
  // A remedy's zero with its price in the legend: the calls it reported
  // failed although they ran, per column, as the Levy faults table shows.
  for (Series& s : by_faults.series)
    if (prices.count(s.title)) s.title += " (" + fmt::format("{}", fmt::join(prices[s.title], ", ")) + " told failed)";
  std::vector<std::string> pngs;
  for (const PlotSpec* p : {&by_load, &by_faults}) {
    if (p->series.empty()) continue;
    std::string why, png = draw(*p, dir, log, &why);
    if (!png.empty()) pngs.push_back(png);
    else notes->push_back("plot skipped: " + why);
  }
  for (const std::string& png : surface_plots(records, reference_data_dir(), dir, log, notes)) pngs.push_back(png);
  for (const std::string& png : surface_delay_plots(records, dir, log, notes)) pngs.push_back(png);
  for (const std::string& png : cascade_plots(records, dir, log, notes)) pngs.push_back(png);
  return pngs;
}

}  // namespace rpclab::harness
