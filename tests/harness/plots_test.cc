// The plots of runs shaped like each preset, drawn from records made by
// hand: no axis may show an impossible value (negative hogs, 1.5 clients),
// throughput shows 0, unrelated fault settings are not joined by lines, a
// copied run folder redraws from its own .gp scripts, and every point and
// bar gnuplot draws is inside the frame, off its edges; every label is
// inside the PNG's canvas, and every series has a colour and a dash of its own.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>

#include "common/atomic_file.h"
#include "harness/cli/experiments.h"
#include "harness/dependability/matrix.h"
#include "harness/kit/plot.h"
#include "harness/record/records_file.h"
#include "harness/speed/speed_matrix.h"
#include "harness/speed/speed_report.h"
#include "harness/speed/speed_rows.h"
#include "process/command_runner.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "synthetic_records.h"
#include "netem/spec/fault_fields.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using test::TempDir;

// Silent errors where Levy saw them (sunrpc-udp under load or faults), and
// none elsewhere, so that several series lie on zero together.
std::vector<json> dependability_run(const std::string& preset, uint64_t silent = 30) {
  std::vector<json> records;
  for (const CellConfig& cell : expand_dependability(dependability_preset(preset))) {
    bool troubled = cell.transport == "sunrpc-udp" && (cell.hogs > 0 || !netem::is_empty(cell.faults));
    records.push_back(dependability_record(cell, 20000, troubled ? silent : 0));
  }
  return records;
}

std::vector<json> speed_run(const std::string& preset) {
  std::vector<json> records;
  for (const CellConfig& cell : expand_speed(speed_preset(preset)))
    if (!is_calibration(cell.transport)) records.push_back(speed_record(cell, {40.0 * cell.clients, 41, 39}));
  return records;
}

// The same with a latency histogram in every record, so that the latency
// distributions are drawn too.
std::vector<json> speed_run_with_histograms(const std::string& preset) {
  std::vector<json> records = speed_run(preset);
  for (json& r : records) r["latency_histogram"] = {{"buckets_per_decade", 10}, {"low_us", {25.1, 31.6, 39.8}},
                                                    {"counts", {10, 80, 10}}};
  return records;
}

// The records of a committed run folder (tests/harness/fixtures/views/).
std::vector<json> fixture_run(const std::string& experiment) {
  std::ifstream in(RPCLAB_SOURCE_DIR "/tests/harness/fixtures/views/" + experiment + "/results.jsonl");
  std::vector<json> records;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) records.push_back(json::parse(line));
  return records;
}

// The plots of `records`, drawn as a run would draw them: from the
// results.jsonl in the run folder.
std::vector<std::string> draw_run(const std::vector<json>& records, const std::string& dir) {
  std::string lines;
  for (const json& r : records) lines += r.dump() + "\n";
  write_file_atomically(dir + "/results.jsonl", lines);
  std::vector<CellRecord> read = read_cell_records(dir + "/results.jsonl", nullptr);
  process::CommandLog log;
  std::vector<std::string> notes;
  find_experiment(read.front().experiment).plots(read, dir, log, &notes);
  std::vector<std::string> scripts;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".gp") scripts.push_back(e.path().stem().string());
  std::sort(scripts.begin(), scripts.end());
  return scripts;
}

std::string setting(const std::string& gp, const std::string& what) {
  std::smatch m;
  return std::regex_search(gp, m, std::regex("(^|\n)set " + what + " ([^\n]*)")) ? m[2].str() : "";
}

std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::regex number("-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod(it->str()));
  return out;
}

// A PNG as gnuplot's pngcairo writes it (8-bit RGB or RGBA, not
// interlaced), decoded: its size and every pixel's RGB.
struct Image {
  size_t width = 0, height = 0;
  std::vector<uint8_t> rgb;
  const uint8_t* at(size_t x, size_t y) const { return &rgb[3 * (y * width + x)]; }
};

uint32_t big_endian(const std::string& s, size_t at) {
  return uint32_t(uint8_t(s[at])) << 24 | uint32_t(uint8_t(s[at + 1])) << 16 | uint32_t(uint8_t(s[at + 2])) << 8 |
         uint32_t(uint8_t(s[at + 3]));
}

Image read_png(const std::string& path) {
  std::string file = read_whole_file(path), idat;
  Image image;
  int colour = 0;
  for (size_t at = 8; at + 8 <= file.size();) {
    uint32_t length = big_endian(file, at);
    std::string type = file.substr(at + 4, 4);
    if (type == "IHDR") {
      image.width = big_endian(file, at + 8);
      image.height = big_endian(file, at + 12);
      EXPECT_EQ(file[at + 16], 8) << path << ": bit depth";
      colour = file[at + 17];
      EXPECT_EQ(file[at + 20], 0) << path << ": interlaced";
    }
    if (type == "IDAT") idat += file.substr(at + 8, length);
    at += 12 + length;
  }
  size_t channels = colour == 6 ? 4 : 3, stride = image.width * channels;
  EXPECT_TRUE(colour == 2 || colour == 6) << path << ": colour type " << colour;
  std::vector<uint8_t> raw((stride + 1) * image.height);
  uLongf size = raw.size();
  EXPECT_EQ(uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()), Z_OK) << path;
  std::vector<uint8_t> prior(stride, 0), line(stride);
  for (size_t y = 0; y < image.height; ++y) {
    const uint8_t* in = &raw[y * (stride + 1)];
    for (size_t i = 0; i < stride; ++i) {
      int a = i >= channels ? line[i - channels] : 0, b = prior[i], c = i >= channels ? prior[i - channels] : 0;
      int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      int predicted[] = {0, a, b, (a + b) / 2, pa <= pb && pa <= pc ? a : pb <= pc ? b : c};
      line[i] = uint8_t(in[1 + i] + predicted[in[0] % 5]);
    }
    for (size_t x = 0; x < image.width; ++x)
      for (size_t k = 0; k < 3; ++k) image.rgb.push_back(line[x * channels + k]);
    prior = line;
  }
  return image;
}

// Nothing gnuplot drew in a PNG touches the canvas's edge: a label (the y
// axis's, a title, a tick's) that does is cut off there. The edge is the
// outermost 2 pixels; the background is white.
void expect_nothing_on_the_canvas_edge(const std::vector<json>& records, const std::string& run) {
  TempDir dir;
  std::vector<std::string> plots = draw_run(records, dir.path());
  ASSERT_FALSE(plots.empty()) << run;
  for (const std::string& name : plots) {
    Image png = read_png(dir.file(name + ".png"));
    ASSERT_GT(png.width * png.height, 0u) << run << " " << name;
    std::vector<std::string> inked;
    for (size_t y = 0; y < png.height; ++y)
      for (size_t x = 0; x < png.width; ++x) {
        bool edge = x < 2 || y < 2 || x + 2 >= png.width || y + 2 >= png.height;
        const uint8_t* p = png.at(x, y);
        if (edge && (p[0] < 200 || p[1] < 200 || p[2] < 200)) inked.push_back(fmt::format("({}, {})", x, y));
      }
    EXPECT_TRUE(inked.empty()) << run << " " << name << ".png: " << inked.size()
                               << " inked pixels on the canvas's edge (a label cut off), such as "
                               << testing::PrintToString(std::vector<std::string>(
                                      inked.begin(), inked.begin() + std::min<size_t>(3, inked.size())));
  }
}

TEST(Plots, NoLabelIsCutOffInAnyPng) {
  if (process::tool_path("gnuplot").find('/') == std::string::npos)
    GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox)";
  expect_nothing_on_the_canvas_edge(dependability_run("quick"), "dependability quick");
  expect_nothing_on_the_canvas_edge(dependability_run("levy1989"), "dependability levy1989");
  expect_nothing_on_the_canvas_edge(speed_run_with_histograms("quick"), "speed quick");
  expect_nothing_on_the_canvas_edge(fixture_run("dependability"), "fixture dependability run");
  expect_nothing_on_the_canvas_edge(fixture_run("speed"), "fixture speed run");
}

// Every series a plot draws has a colour and a dash of its own, set in its
// script, not left to gnuplot's cycle of 8 (which gave raw-udp and thrift,
// the 1st and 9th, one colour): the levy1989 speed preset's rows and ten more.
TEST(Plots, EverySeriesHasAColourAndDashOfItsOwn) {
  TempDir dir;
  std::vector<json> speed = speed_run_with_histograms("levy1989");
  for (int i = 0; i < 10; ++i)  // rows beyond the built-in ones, as adapters add them
    for (int clients : {1, 2}) speed.push_back(speed_record("adapter-" + std::to_string(i), clients, 12, {40, 41, 39}));
  std::vector<std::string> plots = draw_run(speed, dir.path());
  std::filesystem::create_directory(dir.file("dep"));
  for (const std::string& p : draw_run(dependability_run("levy1989"), dir.file("dep"))) plots.push_back("dep/" + p);
  size_t most = 0;
  for (const std::string& name : plots) {
    std::string gp = read_whole_file(dir.file(name + ".gp"));
    std::string plot = gp.substr(gp.find("\nplot "), gp.find("\nset terminal svg") - gp.find("\nplot "));
    std::set<std::string> colours, styles;
    size_t series = 0;
    std::regex each(" index [0-9]+ using [^\n]*");
    for (auto it = std::sregex_iterator(plot.begin(), plot.end(), each); it != std::sregex_iterator(); ++it) {
      std::string line = it->str();
      std::smatch lc, dt;
      ASSERT_TRUE(std::regex_search(line, lc, std::regex("lc rgb '(#[0-9a-f]{6})'"))) << name << ": " << line;
      ASSERT_TRUE(std::regex_search(line, dt, std::regex(" dt ([0-9]+)"))) << name << ": " << line;
      ++series;
      colours.insert(lc[1]);
      styles.insert(lc[1].str() + " " + dt[1].str());
    }
    most = std::max(most, series);
    EXPECT_EQ(styles.size(), series) << name << ": two series drawn alike";
    if (series <= 12) EXPECT_EQ(colours.size(), series) << name << ": two series of one colour";
  }
  EXPECT_GE(most, 9u) << "a plot with more series than gnuplot's 8 colours";
}

// Sizes are written for a reader, B, KiB and MiB (a histogram was titled
// "8K B"); the files keep their short names.
TEST(Plots, SizesAreWrittenInBytesKiBAndMiB) {
  EXPECT_EQ(size_words(12), "12 B");
  EXPECT_EQ(size_words(8192), "8 KiB");
  EXPECT_EQ(size_words(1 << 20), "1 MiB");
  EXPECT_EQ(size_words(1500), "1500 B");
  TempDir dir;
  draw_run(speed_run_with_histograms("quick"), dir.path());
  for (const char* name : {"latency-histogram-8K", "latency-cdf-8K", "latency-histogram-12"}) {
    std::string title = setting(read_whole_file(dir.file(std::string(name) + ".gp")), "title");
    EXPECT_TRUE(title.find(" 8 KiB ") != std::string::npos || title.find(" 12 B ") != std::string::npos)
        << name << ": " << title;
    EXPECT_EQ(title.find("K B"), std::string::npos) << name << ": " << title;
  }
}

// An axis from `lo` to `hi` that shows 0 and reaches below it only by the
// headroom that keeps a point at 0 off the frame (a tenth of the axis at
// most, less than one hog or client).
void expect_zero_just_inside(double lo, double hi, const std::string& what) {
  EXPECT_LT(lo, 0) << what << ": a point at 0 would sit on the frame";
  EXPECT_GE(lo, -0.1 * (hi - lo)) << what << ": reaches far below 0";
  EXPECT_GT(hi, 0) << what;
}

// A count axis (hogs, clients): ticks at whole counts only, from 0 up,
// and nowhere else, so that the headroom beyond the outer counts (below
// 0 hogs, say) shows no number.
void expect_count_axis(const std::string& gp, const std::string& plot) {
  std::string tics = setting(gp, "xtics"), range = setting(gp, "xrange");
  ASSERT_FALSE(tics.empty()) << plot << ": no xtics, so gnuplot picks its own (1.2 clients): " << gp;
  for (double x : numbers(tics)) {
    EXPECT_EQ(x, std::floor(x)) << plot << ": a tick at a fractional count: " << tics;
    EXPECT_GE(x, 0) << plot << ": a tick at a negative count: " << tics;
  }
  ASSERT_EQ(numbers(range).size(), 2u) << plot << ": no xrange: " << gp;
  EXPECT_LT(numbers(range)[0], numbers(tics).front()) << plot << ": the first count on the frame: " << range;
  EXPECT_GT(numbers(range)[1], numbers(tics).back()) << plot << ": the last count on the frame: " << range;
}

// Every y here is a rate, a count or a time: the axis shows 0, just above
// its bottom edge.
void expect_y_from_zero(const std::string& gp, const std::string& plot) {
  std::vector<double> range = numbers(setting(gp, "yrange"));
  ASSERT_EQ(range.size(), 2u) << plot << ": no yrange: " << gp;
  expect_zero_just_inside(range[0], range[1], plot + " y axis");
}

// Every preset's plots, whichever it draws: count axes hold whole counts
// from 0, every y axis shows 0.
TEST(Plots, EveryPresetsAxesShowOnlyPossibleValues) {
  for (const std::string& preset : dependability_presets()) {
    TempDir dir;
    for (const std::string& name : draw_run(dependability_run(preset), dir.path())) {
      std::string gp = read_whole_file(dir.file(name + ".gp"));
      if (name == "surface-heatmap") continue;  // its y is the loads as categories, not a rate from 0
      if (name == "silent-vs-load") expect_count_axis(gp, preset + " " + name);
      expect_y_from_zero(gp, preset + " " + name);
    }
  }
}

TEST(Plots, DependabilityAxesShowOnlyPossibleValues) {
  for (const char* preset : {"quick", "levy1989"}) {
    TempDir dir;
    std::vector<std::string> scripts = draw_run(dependability_run(preset), dir.path());
    EXPECT_EQ(scripts, (std::vector<std::string>{"silent-vs-faults", "silent-vs-load"})) << preset;
    std::string load = read_whole_file(dir.file("silent-vs-load.gp"));
    expect_count_axis(load, std::string(preset) + " silent-vs-load");
    expect_y_from_zero(load, std::string(preset) + " silent-vs-load");
    if (std::string(preset) == "levy1989") {
      EXPECT_EQ(numbers(setting(load, "xtics")), (std::vector<double>{0, 5, 10, 20}));
    }

    std::string faults = read_whole_file(dir.file("silent-vs-faults.gp"));
    expect_y_from_zero(faults, std::string(preset) + " silent-vs-faults");
    EXPECT_EQ(faults.find("lines"), std::string::npos) << preset << ": fault settings are not a sequence: " << faults;
    // Each series sits at its own place inside a category, so zeros do not hide each other.
    std::set<std::string> offsets;
    std::regex offset("using \\(\\$1([-+][0-9.]+)\\)");
    for (auto it = std::sregex_iterator(faults.begin(), faults.end(), offset); it != std::sregex_iterator(); ++it)
      offsets.insert((*it)[1].str());
    EXPECT_GE(offsets.size(), 3u) << preset << ": " << faults;
  }
}

TEST(Plots, ThroughputHasWholeClientsAndStartsAtZero) {
  for (const char* preset : {"quick", "levy1989"}) {
    TempDir dir;
    std::vector<std::string> scripts = draw_run(speed_run(preset), dir.path());
    EXPECT_EQ(scripts, (std::vector<std::string>{"latency-vs-size", "throughput-vs-clients"})) << preset;
    std::string gp = read_whole_file(dir.file("throughput-vs-clients.gp"));
    expect_count_axis(gp, std::string(preset) + " throughput-vs-clients");
    expect_y_from_zero(gp, std::string(preset) + " throughput-vs-clients");
  }
}

// The latency distributions: one CDF and one histogram per size, on a log
// latency axis (no zero or negative latency) and a share from 0; silent
// errors on a symlog axis whose ticks are 0 and decades.
TEST(Plots, LatencyDistributionsAndSymlogAxesShowOnlyPossibleValues) {
  for (const char* preset : {"quick", "levy1989"}) {
    std::vector<json> records = speed_run_with_histograms(preset);
    TempDir dir;
    std::vector<std::string> scripts = draw_run(records, dir.path());
    EXPECT_NE(std::find(scripts.begin(), scripts.end(), "latency-cdf-12"), scripts.end()) << preset;
    EXPECT_NE(std::find(scripts.begin(), scripts.end(), "latency-histogram-12"), scripts.end()) << preset;
    for (const std::string& name : scripts) {
      if (name.rfind("latency-cdf", 0) != 0 && name.rfind("latency-histogram", 0) != 0) continue;
      std::string gp = read_whole_file(dir.file(name + ".gp"));
      EXPECT_EQ(setting(gp, "logscale"), "x") << name;
      expect_y_from_zero(gp, name);
      for (double x : numbers(read_whole_file(dir.file(name + ".dat")))) EXPECT_GE(x, 0) << name;
    }
  }
  TempDir dir;
  draw_run(dependability_run("levy1989"), dir.path());
  std::string load = read_whole_file(dir.file("silent-vs-load.gp"));
  EXPECT_EQ(numbers(setting(load, "ytics")).front(), 0) << "a symlog axis starts at 0: " << load;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "set output \"silent-vs-load.svg\"", load) << "an SVG for report.html";
}

// What gnuplot itself drew, in a copy of the run folder: its scripts must
// name their files relative to the folder they are in.
TEST(Plots, ACopiedRunFolderRedrawsWithTheSameAxes) {
  if (process::tool_path("gnuplot").find('/') == std::string::npos)
    GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox)";
  TempDir dir, copy;
  draw_run(dependability_run("quick"), dir.path());
  std::filesystem::create_directory(dir.file("speed"));
  draw_run(speed_run("levy1989"), dir.file("speed"));
  std::filesystem::copy(dir.path(), copy.file("run"), std::filesystem::copy_options::recursive);
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) std::filesystem::remove_all(e.path());
  for (const char* plot : {"silent-vs-load", "silent-vs-faults", "speed/throughput-vs-clients"}) {
    std::filesystem::path gp = copy.file(std::string("run/") + plot + ".gp");
    std::filesystem::remove(gp.parent_path() / (gp.stem().string() + ".png"));
    test::ProcessResult r = test::run_program(
        {"gnuplot", "-e", "cd '" + gp.parent_path().string() + "'; load '" + gp.filename().string() +
                              "'; set print '-'; print GPVAL_X_MIN, GPVAL_X_MAX, GPVAL_Y_MIN, GPVAL_Y_MAX"});
    ASSERT_EQ(r.exit_code, 0) << plot << ": " << r.err;
    EXPECT_TRUE(std::filesystem::exists(gp.parent_path() / (gp.stem().string() + ".png"))) << plot;
    std::vector<double> drawn = numbers(r.out);
    ASSERT_EQ(drawn.size(), 4u) << r.out;
    if (std::string(plot) != "silent-vs-faults") {  // categories: the x numbers are not shown
      EXPECT_GT(drawn[0], -1) << plot << ": x axis from " << drawn[0];
    }
    expect_zero_just_inside(drawn[2], drawn[3], std::string(plot) + " y axis as drawn");
  }
}

// What gnuplot drew of one plot in `dir`: the axes' final ranges (the
// GPVAL_ variables after the script has run) and every point as plotted,
// after the script's own transforms (sl(), a series' place in its
// category), from gnuplot's table output. The table holds the bars of
// "yerrorbars" but not of "yerrorlines", so the table is made from the
// script's plot command with the one put for the other: same points, same
// bars.
struct DrawnPlot {
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
  bool logx = false, logy = false;
  std::vector<std::vector<double>> points;  // x, then y and any bar ends
  std::vector<std::string> undrawn;         // table lines gnuplot marked out of range or undefined
};

DrawnPlot what_gnuplot_drew(const std::string& dir, const std::string& name) {
  DrawnPlot drawn;
  std::string gp = read_whole_file(dir + "/" + name + ".gp");
  size_t from = gp.find("\nplot "), to = gp.find("\nset terminal svg");
  EXPECT_TRUE(from != std::string::npos && to != std::string::npos) << name << ": " << gp;
  if (from == std::string::npos || to == std::string::npos) return drawn;
  std::string plot = std::regex_replace(gp.substr(from + 1, to - from), std::regex("yerrorlines"), "yerrorbars");
  write_file_atomically(dir + "/" + name + "-table.gp", plot);
  test::ProcessResult r = test::run_program(
      {"gnuplot", "-e",
       "cd '" + dir + "'; load '" + name + ".gp'; set print '-'; print GPVAL_X_MIN, GPVAL_X_MAX, GPVAL_Y_MIN, "
       "GPVAL_Y_MAX; set table '" + name + ".table'; load '" + name + "-table.gp'; unset table"});
  EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  std::vector<double> ranges = numbers(r.out);
  EXPECT_EQ(ranges.size(), 4u) << name << ": " << r.out;
  if (ranges.size() != 4) return drawn;
  drawn.x_min = ranges[0], drawn.x_max = ranges[1], drawn.y_min = ranges[2], drawn.y_max = ranges[3];
  drawn.logx = std::regex_search(gp, std::regex("\nset logscale x"));
  drawn.logy = std::regex_search(gp, std::regex("\nset logscale y"));
  std::ifstream table(dir + "/" + name + ".table");
  for (std::string line; std::getline(table, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::vector<std::string> words{std::istream_iterator<std::string>(fields), {}};
    if (words.empty()) continue;
    if (words.back() != "i") drawn.undrawn.push_back(line);
    std::vector<double> point;
    for (size_t i = 0; i + 1 < words.size(); ++i) point.push_back(std::stod(words[i]));
    drawn.points.push_back(point);
  }
  return drawn;
}

// Where v sits between an axis' ends, 0 to 1 (along log10 on a log axis).
double along(double v, double lo, double hi, bool log) {
  if (log) v = std::log10(v), lo = std::log10(lo), hi = std::log10(hi);
  return (v - lo) / (hi - lo);
}

// Every point and every bar end of every plot drawn from `records` lies
// inside the frame, clear of its edges by at least 2% of the axis (half
// a large marker), on the axes gnuplot itself settled on.
void expect_every_point_inside(const std::vector<json>& records, const std::string& run) {
  TempDir dir;
  std::vector<std::string> plots = draw_run(records, dir.path());
  ASSERT_FALSE(plots.empty()) << run;
  const double kClear = 0.02;
  for (const std::string& name : plots) {
    std::string what = run + " " + name;
    DrawnPlot d = what_gnuplot_drew(dir.path(), name);
    EXPECT_TRUE(d.undrawn.empty()) << what << ": gnuplot left out " << testing::PrintToString(d.undrawn);
    ASSERT_FALSE(d.points.empty()) << what;
    std::vector<std::string> outside;
    auto check = [&](double v, double lo, double hi, bool log, const char* axis, const std::vector<double>& p) {
      double at = along(v, lo, hi, log);
      if (at >= kClear && at <= 1 - kClear) return;
      outside.push_back(fmt::format("{} ({}) at {:.3f} of the {} axis [{}:{}]", testing::PrintToString(p), v, at,
                                    axis, lo, hi));
    };
    for (const std::vector<double>& p : d.points) {
      check(p[0], d.x_min, d.x_max, d.logx, "x", p);
      for (size_t i = 1; i < p.size(); ++i) check(p[i], d.y_min, d.y_max, d.logy, "y", p);
    }
    EXPECT_TRUE(outside.empty()) << what << ": " << outside.size() << " values on or past the frame, such as "
                                 << testing::PrintToString(std::vector<std::string>(
                                        outside.begin(), outside.begin() + std::min<size_t>(3, outside.size())));
  }
}

// The quick presets' plots, from records made by hand (with silent errors
// as rare as Levy's and as common as a quick run on a busy machine saw,
// 43,000 per million) and from the committed run folders: every point
// shows.
TEST(Plots, EveryPointOfTheQuickPresetsIsInsideTheFrame) {
  if (process::tool_path("gnuplot").find('/') == std::string::npos)
    GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox)";
  expect_every_point_inside(dependability_run("quick"), "dependability quick");
  expect_every_point_inside(dependability_run("quick", 860), "dependability quick, 43,000 silent per million");
  expect_every_point_inside(speed_run_with_histograms("quick"), "speed quick");
  expect_every_point_inside(fixture_run("dependability"), "fixture dependability run");
  expect_every_point_inside(fixture_run("speed"), "fixture speed run");
}

}  // namespace
}  // namespace rpclab::harness
