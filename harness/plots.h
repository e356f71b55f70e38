// Plots as PNG under the run folder, drawn by gnuplot from data files the
// harness writes beside them (so a person can redraw them).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netem/command_log.h"

namespace rpclab::harness {

// One line per series: x values with y and its 95% interval.
struct Series {
  std::string title;
  std::vector<double> x, y, low, high;
};

struct PlotSpec {
  std::string name;      // file stem: <dir>/<name>.png, .dat, .gp
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  std::vector<std::string> xtics;  // categorical labels for x = 0, 1, 2...
  std::vector<Series> series;
};

// Draws the plot; returns the PNG path, or "" with `why` set (no gnuplot,
// nothing to draw, gnuplot failed).
std::string draw(const PlotSpec& plot, const std::string& dir, netem::CommandLog& log, std::string* why);

// The dependability plots: silent errors per million vs load, and vs loss
// and duplication; one line per transport variant. Returns PNG paths.
std::vector<std::string> dependability_plots(const std::vector<nlohmann::json>& records, const std::string& dir,
                                             netem::CommandLog& log, std::vector<std::string>* notes);

}  // namespace rpclab::harness
