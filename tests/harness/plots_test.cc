// The plots of runs shaped like each preset, drawn from records made by
// hand: no axis may show an impossible value (negative hogs, 1.5 clients),
// throughput starts at 0, unrelated fault settings are not joined by
// lines, and a copied run folder redraws from its own .gp scripts.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

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
std::vector<json> dependability_run(const std::string& preset) {
  std::vector<json> records;
  for (const CellConfig& cell : expand_dependability(dependability_preset(preset))) {
    bool troubled = cell.transport == "sunrpc-udp" && (cell.hogs > 0 || !netem::is_empty(cell.faults));
    records.push_back(dependability_record(cell, 20000, troubled ? 30 : 0));
  }
  return records;
}

std::vector<json> speed_run(const std::string& preset) {
  std::vector<json> records;
  for (const CellConfig& cell : expand_speed(speed_preset(preset)))
    if (!is_calibration(cell.transport)) records.push_back(speed_record(cell, {40.0 * cell.clients, 41, 39}));
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
  std::regex number("-?[0-9]+(\\.[0-9]+)?");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod(it->str()));
  return out;
}

// A count axis (hogs, clients): ticks at whole counts only, from 0 up.
void expect_count_axis(const std::string& gp, const std::string& plot) {
  std::string tics = setting(gp, "xtics"), range = setting(gp, "xrange");
  ASSERT_FALSE(tics.empty()) << plot << ": no xtics, so gnuplot picks its own (1.2 clients): " << gp;
  for (double x : numbers(tics)) {
    EXPECT_EQ(x, std::floor(x)) << plot << ": a tick at a fractional count: " << tics;
    EXPECT_GE(x, 0) << plot << ": a tick at a negative count: " << tics;
  }
  ASSERT_EQ(numbers(range).size(), 2u) << plot << ": no xrange, so gnuplot may pad below 0: " << gp;
  EXPECT_GE(numbers(range)[0], 0) << plot << ": the x axis starts below 0: " << range;
}

void expect_y_from_zero(const std::string& gp, const std::string& plot) {
  EXPECT_EQ(setting(gp, "yrange"), "[0:*]") << plot << ": the y axis must start at 0";
}

// Every preset's plots, whichever it draws: count axes hold whole counts
// from 0, every y axis starts at 0.
TEST(Plots, EveryPresetsAxesShowOnlyPossibleValues) {
  for (const std::string& preset : dependability_presets()) {
    TempDir dir;
    for (const std::string& name : draw_run(dependability_run(preset), dir.path())) {
      std::string gp = read_whole_file(dir.file(name + ".gp"));
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
    std::vector<json> records = speed_run(preset);
    for (json& r : records) r["latency_histogram"] = {{"buckets_per_decade", 10}, {"low_us", {25.1, 31.6, 39.8}},
                                                      {"counts", {10, 80, 10}}};
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
                              "'; set print '-'; print GPVAL_X_MIN, GPVAL_X_MAX, GPVAL_Y_MIN"});
    ASSERT_EQ(r.exit_code, 0) << plot << ": " << r.err;
    EXPECT_TRUE(std::filesystem::exists(gp.parent_path() / (gp.stem().string() + ".png"))) << plot;
    std::vector<double> drawn = numbers(r.out);
    ASSERT_EQ(drawn.size(), 3u) << r.out;
    if (std::string(plot) != "silent-vs-faults") {  // categories: the x numbers are not shown
      EXPECT_GE(drawn[0], 0) << plot << ": x axis from " << drawn[0];
    }
    EXPECT_EQ(drawn[2], 0) << plot << ": y axis from " << drawn[2];
  }
}

}  // namespace
}  // namespace rpclab::harness
