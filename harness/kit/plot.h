// Plots as PNG and SVG under the run folder (the SVG for report.html to
// inline), drawn by gnuplot from data files the harness writes beside them. The scripts name their files relative to the
// run folder, so a copied folder redraws with `gnuplot NAME.gp` inside it.
#pragma once

#include <string>
#include <vector>

#include "process/command_log.h"

namespace rpclab::harness {

// One line per series: x values with y and its 95% interval.
struct Series {
  std::string title;
  std::vector<double> x, y, low, high;
};

// What the x axis holds, which decides its ticks, its range and whether
// points are joined:
// - a measure (payload bytes): a linear or log axis around the data;
// - a count (hogs, clients): ticks only at the counts measured, points
//   joined along the count, one count alone in the middle of the axis;
// - categories (fault settings): one label each, points not joined.
// On counts and categories the series are set side by side around each
// tick, so that none hides another (a count alone is a category).
// Every axis reaches past the data at both ends, so that no marker or bar
// sits on the frame: a y of 0 is drawn just above the bottom edge.
enum class XAxis { kMeasure, kCount, kCategory };

struct PlotSpec {
  std::string name;      // file stem: <dir>/<name>.png, .dat, .gp
  std::string title, xlabel, ylabel;
  XAxis x = XAxis::kMeasure;
  bool logx = false, logy = false;  // a linear y axis shows 0: every y here is a rate, a count or a time
  // (a log y axis ends at whole decades)
  // y drawn as log10(1 + y), ticks labelled 0, 1, 10, 100...: a log axis
  // that still shows zeros and the interval bounds that reach them.
  bool symlogy = false;
  std::string style;                // gnuplot "with" for every series; "" = error bars (lines on a measure axis)
  std::vector<std::string> xtics;   // kCategory: the labels of x = 0, 1, 2...
  bool diagonal_last = false;       // the last series is a reference line (y = x, say): drawn as a dashed line
  std::vector<Series> series;
};

// Draws the plot as <name>.png and <name>.svg; returns the PNG path, or ""
// with `why` set (no gnuplot, nothing to draw, gnuplot failed).
std::string draw(const PlotSpec& plot, const std::string& dir, process::CommandLog& log, std::string* why);

// A heat map: one box per (x, y) category, filled by its value on a
// symlog colour scale (log10(1 + value), ticks 0, 10, 100 ...), its text
// written on it; a place without a box stays white.
struct HeatBox {
  size_t x = 0, y = 0;  // indices into xtics, ytics
  double value = 0;
  std::string label;
};
struct HeatMap {
  std::string name;  // file stem: <dir>/<name>.png, .svg, .dat, .gp
  std::string title, xlabel, ylabel, cblabel;
  std::vector<std::string> xtics, ytics;
  std::vector<HeatBox> boxes;
};
// The gnuplot script and data file of `map`, as draw_heatmap writes them.
std::string heatmap_script(const HeatMap& map);
std::string heatmap_data(const HeatMap& map);
// Draws it as <name>.png and .svg, as draw() does a plot.
std::string draw_heatmap(const HeatMap& map, const std::string& dir, process::CommandLog& log, std::string* why);

// The SVG beside a PNG that draw() returned: <stem>.svg.
std::string svg_beside(const std::string& png);

}  // namespace rpclab::harness
