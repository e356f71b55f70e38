#include "harness/plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/atomic_file.h"
#include "harness/dependability_report.h"
#include "netem/command_runner.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

std::string gp_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

std::string data_file(const PlotSpec& plot) {
  std::string out;
  for (const Series& s : plot.series) {
    out += "# " + s.title + "\n";
    for (size_t i = 0; i < s.x.size(); ++i) out += fmt::format("{} {} {} {}\n", s.x[i], s.y[i], s.low[i], s.high[i]);
    out += "\n\n";  // gnuplot: a new index
  }
  return out;
}

std::string script(const PlotSpec& plot, const std::string& dat, const std::string& png) {
  std::string gp = fmt::format(
      "set terminal pngcairo size 1000,650 noenhanced\nset output {}\nset title {}\nset xlabel {}\nset ylabel {}\n"
      "set key outside bottom center horizontal\nset grid\n",
      gp_quote(png), gp_quote(plot.title), gp_quote(plot.xlabel), gp_quote(plot.ylabel));
  // A log axis would otherwise run on to the next decade: 1e7 for a 1 MiB point.
  if (plot.logx) gp += "set logscale x\nset autoscale xfix\nset offsets graph 0.04, graph 0.04, 0, 0\n";
  if (plot.logy) gp += "set logscale y\n";
  if (!plot.xtics.empty()) {
    gp += "set xtics (";
    for (size_t i = 0; i < plot.xtics.size(); ++i) gp += fmt::format("{}{} {}", i ? ", " : "", gp_quote(plot.xtics[i]), i);
    gp += ") rotate by -30\nset xrange [-0.5:" + std::to_string(plot.xtics.size()) + "]\n";
  }
  gp += "plot ";
  for (size_t i = 0; i < plot.series.size(); ++i)
    gp += fmt::format("{}{} index {} using 1:2:3:4 with yerrorlines title {}", i ? ", \\\n     " : "", gp_quote(dat), i,
                      gp_quote(plot.series[i].title));
  return gp + "\n";
}

double rate(const json& r, const char* key) { return r.at("silent_per_million").value(key, 0.0); }

void add_point(Series& s, double x, const json& r) {
  s.x.push_back(x);
  s.y.push_back(rate(r, "value"));
  s.low.push_back(rate(r, "ci95_low"));
  s.high.push_back(rate(r, "ci95_high"));
}

}  // namespace

std::string draw(const PlotSpec& plot, const std::string& dir, netem::CommandLog& log, std::string* why) {
  if (plot.series.empty()) {
    *why = "no data for " + plot.name;
    return "";
  }
  std::string stem = dir + "/" + plot.name, png = stem + ".png";
  if (!absent_or_regular_file(png)) {  // gnuplot would truncate whatever is there
    *why = png + " exists and is not a regular file, so it was left alone";
    return "";
  }
  write_file_atomically(stem + ".dat", data_file(plot));
  write_file_atomically(stem + ".gp", script(plot, stem + ".dat", png));
  netem::CommandResult r = netem::run({"gnuplot", stem + ".gp"}, log);
  if (r.exit_code != 0) {
    *why = fmt::format("gnuplot failed for {} (exit {}): {} (is gnuplot-nox installed?)", plot.name, r.exit_code, r.err);
    return "";
  }
  return png;
}

std::vector<std::string> dependability_plots(const std::vector<json>& records, const std::string& dir,
                                             netem::CommandLog& log, std::vector<std::string>* notes) {
  PlotSpec by_load{"silent-vs-load", "Silent errors vs server load (no network faults)", "CPU hogs on the server's CPU",
                   "silent errors per 1,000,000 calls"};
  PlotSpec by_faults{"silent-vs-faults", "Silent errors vs loss and duplication (load 0, two-host link)", "",
                     "silent errors per 1,000,000 calls"};
  std::map<std::string, size_t> load_series, fault_series;
  for (const json& r : records) {
    if (r.value("experiment", "") != "dependability" || r.value("status", "") != "ok") continue;
    std::string variant = row_variant(r);
    if (!has_faults(r)) {
      if (!load_series.count(variant)) {
        load_series[variant] = by_load.series.size();
        by_load.series.push_back({variant});
      }
      add_point(by_load.series[load_series[variant]], r.at("cell").value("hogs", 0), r);
    } else if (r.at("cell").value("hogs", 0) == 0) {
      const json& f = r.at("cell").at("faults");
      std::string tic = fmt::format("loss {}/dup {}", f.value("loss_pct", 0.0), f.value("dup_pct", 0.0));
      auto it = std::find(by_faults.xtics.begin(), by_faults.xtics.end(), tic);
      double x = static_cast<double>(it - by_faults.xtics.begin());
      if (it == by_faults.xtics.end()) by_faults.xtics.push_back(tic);
      if (!fault_series.count(variant)) {
        fault_series[variant] = by_faults.series.size();
        by_faults.series.push_back({variant});
      }
      add_point(by_faults.series[fault_series[variant]], x, r);
    }
  }
  std::vector<std::string> pngs;
  for (const PlotSpec* p : {&by_load, &by_faults}) {
    if (p->series.empty()) continue;
    std::string why, png = draw(*p, dir, log, &why);
    if (!png.empty()) pngs.push_back(png);
    else notes->push_back("plot skipped: " + why);
  }
  return pngs;
}

}  // namespace rpclab::harness
