#include "harness/kit/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "common/atomic_file.h"
#include "process/command_runner.h"

namespace rpclab::harness {
namespace {


// A newline in `s` becomes gnuplot's \n: a label of two lines.
std::string gp_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '\n') q += "\\n";
    else q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  }
  return q + "\"";
}

// `text` broken at spaces into lines of at most `width` characters.
// pngcairo draws at a fixed size and cuts off what passes the canvas (a y
// label longer than the plot is high lost both ends); the SVG does not, so
// only the PNG showed it. At these widths a line stays inside the 1000 x
// 650 canvas in pngcairo's default font (plots_test reads the PNGs).
std::string wrapped(const std::string& text, size_t width) {
  std::string out, line;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}
constexpr size_t kTitleWidth = 100, kYLabelWidth = 60;

// Each series' colour and dash: its own, not gnuplot's cycle of 8 (which
// gave the 1st and 9th series, raw-udp and thrift, one colour). Twelve
// colours apart from one another, and five dashes, so that no two of the
// first 60 series are drawn alike, nor in grey print the neighbours.
std::string series_style(size_t i) {
  static const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                         "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#000000", "#aa0078"};
  return fmt::format("lc rgb '{}' dt {}", kColours[i % std::size(kColours)], 1 + i % 5);
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

// How far an axis reaches past its data at each end, as a share of the
// data's span: far enough that no marker or bar end sits on the frame
// (a marker is drawn around its point, half of it past a frame it sits on).
constexpr double kHeadroom = 0.05;

struct Range {
  double lo, hi;
};

// [lo, hi] widened by kHeadroom of its span at each end, or by `alone`
// when it is one value.
Range with_headroom(double lo, double hi, double alone) {
  double pad = hi > lo ? kHeadroom * (hi - lo) : alone;
  return {lo - pad, hi + pad};
}

std::string range_setting(const char* axis, Range r) { return fmt::format("set {}range [{:.6g}:{:.6g}]\n", axis, r.lo, r.hi); }

std::set<long long> counts(const PlotSpec& plot) {
  std::set<long long> xs;
  for (const Series& s : plot.series)
    for (double x : s.x) xs.insert(std::llround(x));
  return xs;
}

// The room each count has on its axis, as each category has 1: the
// smallest step between the counts measured, 1 for a count alone.
double count_room(const std::set<long long>& xs) {
  long long room = 0;
  for (auto a = xs.begin(), b = std::next(a); a != xs.end() && b != xs.end(); ++a, ++b)
    room = room ? std::min(room, *b - *a) : *b - *a;
  return room ? double(room) : 1.0;
}

// Ticks at the counts measured and nowhere else (no 1.5 clients, no -1
// hogs), and a range with half a count's room beyond the outer counts:
// one count alone sits in the middle, the series beside one another.
std::string count_axis(const PlotSpec& plot) {
  std::set<long long> xs = counts(plot);
  if (xs.empty()) return "";
  double lo = double(*xs.begin()), hi = double(*xs.rbegin());
  double pad = std::max(0.5 * count_room(xs), kHeadroom * (hi - lo));
  std::vector<std::string> tics;
  for (long long x : xs) tics.push_back(fmt::format("{}", x));
  return fmt::format("set xtics ({})\n", fmt::join(tics, ", ")) + range_setting("x", {lo - pad, hi + pad});
}

// A measure on a linear axis (seconds): the data's span and headroom.
std::string linear_measure_axis(const PlotSpec& plot) {
  std::vector<double> xs;
  for (const Series& s : plot.series) xs.insert(xs.end(), s.x.begin(), s.x.end());
  if (xs.empty()) return "";
  auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  return range_setting("x", with_headroom(*lo, *hi, std::max(0.5, std::abs(*lo) * kHeadroom)));
}

std::string category_axis(const PlotSpec& plot) {
  std::string gp = "set xtics (";
  for (size_t i = 0; i < plot.xtics.size(); ++i) gp += fmt::format("{}{} {}", i ? ", " : "", gp_quote(plot.xtics[i]), i);
  return gp + fmt::format(") rotate by -30\nset xrange [-0.5:{}]\n", double(plot.xtics.size()) - 0.5);
}

double sl(double y) { return std::log10(1 + y); }

// Every y the plot draws: the values, and their intervals' ends where
// they are drawn as bars.
std::vector<double> drawn_y(const PlotSpec& plot) {
  std::vector<double> ys;
  for (const Series& s : plot.series) {
    ys.insert(ys.end(), s.y.begin(), s.y.end());
    if (!plot.style.empty()) continue;  // a line or steps: no interval
    ys.insert(ys.end(), s.low.begin(), s.low.end());
    ys.insert(ys.end(), s.high.begin(), s.high.end());
  }
  return ys;
}

// A symlog axis: from 0 (in headroom below it) to the data's top; ticks
// 0, 1, 10, ... up to the decade above the data.
std::string symlog_axis(const PlotSpec& plot) {
  double top = 1;
  for (double y : drawn_y(plot)) top = std::max(top, y);
  std::string tics = "\"0\" 0";
  for (double v = 1; v < top * 10; v *= 10) tics += fmt::format(", \"{:g}\" {:.6f}", v, sl(v));
  return "sl(y) = log10(1 + y)\n" + range_setting("y", with_headroom(0, sl(top), 0)) + "set ytics (" + tics + ")\n";
}

// A log axis ends at whole decades, so that it has labelled ticks, beyond
// the data's headroom.
std::string log_y_axis(const PlotSpec& plot) {
  std::vector<double> ys;
  for (double y : drawn_y(plot))
    if (y > 0) ys.push_back(std::log10(y));
  std::string gp = "set logscale y\n";
  if (ys.empty()) return gp;
  auto [lo, hi] = std::minmax_element(ys.begin(), ys.end());
  Range r = with_headroom(*lo, *hi, kHeadroom);
  return gp + range_setting("y", {std::pow(10.0, std::floor(r.lo)), std::pow(10.0, std::ceil(r.hi))});
}

// A linear axis shows 0 (every y here is a rate, a count or a time) and
// the data's top, with headroom beyond both.
std::string linear_y_axis(const PlotSpec& plot) {
  double lo = 0, hi = 0;
  for (double y : drawn_y(plot)) lo = std::min(lo, y), hi = std::max(hi, y);
  return range_setting("y", with_headroom(lo, hi > lo ? hi : lo + 1, 0));
}

// Series i of n, set beside the others within its category's or count's
// room, so that none hides another; y through sl() on a symlog axis.
std::string using_columns(const PlotSpec& plot, size_t i) {
  std::string y = plot.symlogy ? "(sl($2)):(sl($3)):(sl($4))" : "2:3:4";
  if (!plot.style.empty()) y = plot.symlogy ? "(sl($2))" : "2";  // a line or steps: no interval
  if (plot.x == XAxis::kMeasure) return "1:" + y;
  double room = plot.x == XAxis::kCount ? count_room(counts(plot)) : 1.0;
  double width = std::min(0.15, 0.6 / double(plot.series.size())) * room;
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
      plot.name, gp_quote(plot.name + ".png"), gp_quote(wrapped(plot.title, kTitleWidth)),
      gp_quote(wrapped(plot.xlabel, kTitleWidth)), gp_quote(wrapped(plot.ylabel, kYLabelWidth)));
  // A log axis would otherwise run on to the next decade: 1e7 for a 1 MiB point.
  if (plot.logx) gp += "set logscale x\nset autoscale xfix\nset offsets graph 0.04, graph 0.04, 0, 0\n";
  if (plot.symlogy) gp += symlog_axis(plot);
  else gp += plot.logy ? log_y_axis(plot) : linear_y_axis(plot);
  if (plot.x == XAxis::kCount) gp += count_axis(plot);
  if (plot.x == XAxis::kCategory) gp += category_axis(plot);
  if (plot.x == XAxis::kMeasure && !plot.logx) gp += linear_measure_axis(plot);
  std::string style = plot_style(plot);
  gp += "plot ";
  for (size_t i = 0; i < plot.series.size(); ++i) {
    bool reference = plot.diagonal_last && i + 1 == plot.series.size();
    gp += fmt::format("{}{} index {} using {} with {} {} title {}", i ? ", \\\n     " : "", gp_quote(plot.name + ".dat"),
                      i, reference ? "1:2" : using_columns(plot, i), reference ? "lines" : style,
                      reference ? "lc rgb '#666666' dt 2"
                                : series_style(i) + " " + (plot.style.empty() ? marker(i) : "lw 2"),
                      gp_quote(plot.series[i].title));
  }
  // The same plot again as SVG, for report.html to inline.
  return gp + fmt::format("\nset terminal svg size 1000,650 noenhanced background rgb 'white'\nset output {}\nreplot\n"
                          "unset output\n", gp_quote(plot.name + ".svg"));
}

}  // namespace

namespace {

// Writes the data and script of plot `name` under `dir` and runs gnuplot
// on them; returns the PNG path, or "" with `why` set.
std::string run_gnuplot(const std::string& name, const std::string& data, const std::string& gp, const std::string& dir,
                        process::CommandLog& log, std::string* why) {
  std::string stem = dir + "/" + name, png = stem + ".png";
  for (const std::string& out : {png, stem + ".svg"})
    if (!absent_or_regular_file(out)) {  // gnuplot would truncate whatever is there
      *why = out + " exists and is not a regular file, so it was left alone";
      return "";
    }
  write_file_atomically(stem + ".dat", data);
  write_file_atomically(stem + ".gp", gp);
  process::CommandResult r = process::run({"gnuplot", "-e", "cd " + gp_single_quote(dir), name + ".gp"}, log);
  if (r.exit_code != 0) {
    *why = fmt::format("gnuplot failed for {} (exit {}): {} (is gnuplot-nox installed?)", name, r.exit_code, r.err);
    return "";
  }
  return png;
}

std::string tic_list(const std::vector<std::string>& tics) {
  std::string out;
  for (size_t i = 0; i < tics.size(); ++i) out += fmt::format("{}{} {}", i ? ", " : "", gp_quote(tics[i]), i);
  return "(" + out + ")";
}

}  // namespace

std::string draw(const PlotSpec& plot, const std::string& dir, process::CommandLog& log, std::string* why) {
  if (plot.series.empty()) {
    *why = "no data for " + plot.name;
    return "";
  }
  return run_gnuplot(plot.name, data_file(plot), script(plot), dir, log, why);
}

std::string heatmap_data(const HeatMap& map) {
  std::string out = "# x y value label\n";
  for (const HeatBox& b : map.boxes) out += fmt::format("{} {} {} {}\n", b.x, b.y, b.value, gp_quote(b.label));
  return out;
}

std::string heatmap_script(const HeatMap& map) {
  double top = 1;  // the colour scale's top decade: at least 10
  for (const HeatBox& b : map.boxes) top = std::max(top, std::ceil(std::log10(1 + b.value)));
  std::string cbtics;
  for (int d = 0; d <= static_cast<int>(top); ++d)
    cbtics += fmt::format("{}\"{}\" {}", d ? ", " : "", d == 0 ? std::string("0") : fmt::format("1e{}", d),
                          d == 0 ? 0.0 : std::log10(1 + std::pow(10.0, d)));
  std::string gp = fmt::format(
      "# Redraw in the run folder with: gnuplot {}.gp\n"
      "set terminal pngcairo size 1000,650 noenhanced\nset output {}\nset title {}\nset xlabel {}\nset ylabel {}\n"
      "set cblabel {}\nunset key\nsl(v) = log10(1 + v)\n"
      "set xrange [-0.5:{}]\nset yrange [-0.5:{}]\nset xtics {}\nset ytics {}\n"
      "set cbrange [0:{}]\nset cbtics ({})\n"
      "set palette defined (0 'white', 1 '#fff3b0', 3 '#f4a259', 6 '#9b2226')\n",
      map.name, gp_quote(map.name + ".png"), gp_quote(wrapped(map.title, kTitleWidth)),
      gp_quote(wrapped(map.xlabel, kTitleWidth)), gp_quote(wrapped(map.ylabel, kYLabelWidth)),
      gp_quote(wrapped(map.cblabel, kYLabelWidth)), double(map.xtics.size()) - 0.5, double(map.ytics.size()) - 0.5, tic_list(map.xtics),
      tic_list(map.ytics), top, cbtics);
  gp += fmt::format("plot {0} using 1:2:(0.5):(0.5):(sl($3)) with boxxyerror fs solid 1.0 noborder lc palette, \\\n"
                    "     {0} using 1:2:4 with labels\n",
                    gp_quote(map.name + ".dat"));
  return gp + fmt::format("set terminal svg size 1000,650 noenhanced background rgb 'white'\nset output {}\nreplot\n"
                          "unset output\n", gp_quote(map.name + ".svg"));
}

std::string draw_heatmap(const HeatMap& map, const std::string& dir, process::CommandLog& log, std::string* why) {
  if (map.boxes.empty()) {
    *why = "no data for " + map.name;
    return "";
  }
  return run_gnuplot(map.name, heatmap_data(map), heatmap_script(map), dir, log, why);
}

std::string svg_beside(const std::string& png) { return png.substr(0, png.size() - 4) + ".svg"; }

}  // namespace rpclab::harness
