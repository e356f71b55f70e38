#include "harness/kit/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

#include "common/atomic_file.h"
#include "process/command_runner.h"

namespace rpclab::harness {
namespace {


std::string gp_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

// gnuplot's single quotes take everything literally but a doubled quote.
std::string gp_single_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
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

// Open markers of falling size, so that series on the same points (all
// zero, say) still show one inside another.
std::string marker(size_t i) {
  static const int kOpenPoints[] = {6, 4, 8, 12, 10, 14};
  return fmt::format("pt {} ps {:.1f}", kOpenPoints[i % std::size(kOpenPoints)], std::max(1.0, 2.2 - 0.3 * double(i)));
}

// Ticks at the counts measured and nowhere else (no 1.5 clients), and a
// range from the data, never below 0 hogs or clients.
std::string count_axis(const PlotSpec& plot) {
  std::set<long long> xs;
  for (const Series& s : plot.series)
    for (double x : s.x) xs.insert(std::llround(x));
  double lo = double(*xs.begin()), hi = double(*xs.rbegin()), pad = std::max(0.5, 0.05 * (hi - lo));
  std::vector<std::string> tics;
  for (long long x : xs) tics.push_back(fmt::format("{}", x));
  return fmt::format("set xtics ({})\nset xrange [{}:{}]\n", fmt::join(tics, ", "), std::max(0.0, lo - pad), hi + pad);
}

std::string category_axis(const PlotSpec& plot) {
  std::string gp = "set xtics (";
  for (size_t i = 0; i < plot.xtics.size(); ++i) gp += fmt::format("{}{} {}", i ? ", " : "", gp_quote(plot.xtics[i]), i);
  return gp + fmt::format(") rotate by -30\nset xrange [-0.5:{}]\n", double(plot.xtics.size()) - 0.5);
}

// Ticks of a symlog axis: 0, 1, 10, ... up to the decade above the data.
std::string symlog_axis(const PlotSpec& plot) {
  double top = 1;
  for (const Series& s : plot.series)
    for (double h : s.high) top = std::max(top, h);
  std::string tics = "\"0\" 0";
  for (double v = 1; v < top * 10; v *= 10) tics += fmt::format(", \"{:g}\" {:.6f}", v, std::log10(1 + v));
  return "sl(y) = log10(1 + y)\nset yrange [0:*]\nset ytics (" + tics + ")\n";
}

// Series i of n, set beside the others inside its category; y through
// sl() on a symlog axis.
std::string using_columns(const PlotSpec& plot, size_t i) {
  std::string y = plot.symlogy ? "(sl($2)):(sl($3)):(sl($4))" : "2:3:4";
  if (!plot.style.empty()) y = plot.symlogy ? "(sl($2))" : "2";  // a line or steps: no interval
  if (plot.x != XAxis::kCategory) return "1:" + y;
  double width = std::min(0.15, 0.6 / double(plot.series.size()));
  return fmt::format("($1{:+.3f}):{}", (double(i) - double(plot.series.size() - 1) / 2) * width, y);
}

std::string plot_style(const PlotSpec& plot) {
  if (!plot.style.empty()) return plot.style;
  return plot.x == XAxis::kCategory ? "yerrorbars" : "yerrorlines";
}

std::string script(const PlotSpec& plot) {
  std::string gp = fmt::format(
      "# Redraw in the run folder with: gnuplot {}.gp\n"
      "set terminal pngcairo size 1000,650 noenhanced\nset output {}\nset title {}\nset xlabel {}\nset ylabel {}\n"
      "set key outside bottom center horizontal\nset grid\n",
      plot.name, gp_quote(plot.name + ".png"), gp_quote(plot.title), gp_quote(plot.xlabel), gp_quote(plot.ylabel));
  // A log axis would otherwise run on to the next decade: 1e7 for a 1 MiB point.
  if (plot.logx) gp += "set logscale x\nset autoscale xfix\nset offsets graph 0.04, graph 0.04, 0, 0\n";
  if (plot.symlogy) gp += symlog_axis(plot);
  else gp += plot.logy ? "set logscale y\n" : "set yrange [0:*]\n";
  if (plot.x == XAxis::kCount) gp += count_axis(plot);
  if (plot.x == XAxis::kCategory) gp += category_axis(plot);
  std::string style = plot_style(plot);
  gp += "plot ";
  for (size_t i = 0; i < plot.series.size(); ++i)
    gp += fmt::format("{}{} index {} using {} with {} {} title {}", i ? ", \\\n     " : "", gp_quote(plot.name + ".dat"),
                      i, using_columns(plot, i), style, plot.style.empty() ? marker(i) : "lw 2", gp_quote(plot.series[i].title));
  // The same plot again as SVG, for report.html to inline.
  return gp + fmt::format("\nset terminal svg size 1000,650 noenhanced background rgb 'white'\nset output {}\nreplot\n"
                          "unset output\n", gp_quote(plot.name + ".svg"));
}

}  // namespace

std::string draw(const PlotSpec& plot, const std::string& dir, process::CommandLog& log, std::string* why) {
  if (plot.series.empty()) {
    *why = "no data for " + plot.name;
    return "";
  }
  std::string stem = dir + "/" + plot.name, png = stem + ".png";
  for (const std::string& out : {png, stem + ".svg"})
    if (!absent_or_regular_file(out)) {  // gnuplot would truncate whatever is there
      *why = out + " exists and is not a regular file, so it was left alone";
      return "";
    }
  write_file_atomically(stem + ".dat", data_file(plot));
  write_file_atomically(stem + ".gp", script(plot));
  process::CommandResult r = process::run({"gnuplot", "-e", "cd " + gp_single_quote(dir), plot.name + ".gp"}, log);
  if (r.exit_code != 0) {
    *why = fmt::format("gnuplot failed for {} (exit {}): {} (is gnuplot-nox installed?)", plot.name, r.exit_code, r.err);
    return "";
  }
  return png;
}

std::string svg_beside(const std::string& png) { return png.substr(0, png.size() - 4) + ".svg"; }

}  // namespace rpclab::harness
