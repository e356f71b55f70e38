// The views of a run folder, made from real records: the committed run
// folders in tests/harness/fixtures/views/ hold records of runs of the
// dependability and speed experiments (a few cells of each kind), and
// their expected/ folders what the build before typed records made of
// them: the tables as text and as Markdown, results.csv, report.html
// (without its plots, which gnuplot draws) and each plot's data and
// script. RPCLAB_WRITE_VIEWS=1 writes expected/ instead of comparing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/report/csv_view.h"
#include "harness/report/html_report.h"
#include "harness/cli/experiments.h"
#include "harness/run/experiment.h"
#include "harness/record/records_file.h"
#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = RPCLAB_SOURCE_DIR "/tests/harness/fixtures/views/";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Compares `text` with expected/NAME, or writes it there.
void expect_view(const std::string& folder, const std::string& name, const std::string& text) {
  std::string path = folder + "/expected/" + name;
  if (std::getenv("RPCLAB_WRITE_VIEWS")) {
    fs::create_directories(folder + "/expected");
    std::ofstream(path) << text;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path;
  EXPECT_EQ(text, read_text(path)) << name << " differs from " << path;
}

void check_views(const std::string& experiment_name) {
  std::string folder = kFixtures + experiment_name;
  std::vector<std::string> warnings;
  auto records = latest_per_cell(read_cell_records(folder + "/results.jsonl", &warnings));
  EXPECT_TRUE(warnings.empty());
  ASSERT_FALSE(records.empty());
  const Experiment& experiment = find_experiment(experiment_name);
  ReportOptions options;
  options.data_dir = RPCLAB_SOURCE_DIR "/docs/data";
  expect_view(folder, "report.txt", experiment.report(records, options));
  options.markdown = true;
  std::string markdown = experiment.report(records, options);
  expect_view(folder, "report.md", markdown);
  expect_view(folder, "results.csv", records_to_csv(records));
  HtmlReportInput in;
  in.metadata = *read_run_metadata(folder + "/metadata.json");
  in.records = records;
  in.tables_markdown = markdown;
  in.commands_log = read_text(folder + "/commands.log");
  in.cell_figures = experiment.cell_figures;
  expect_view(folder, "report.html", html_report(in));
  test::TempDir dir;
  process::CommandLog log;
  std::vector<std::string> notes;
  experiment.plots(records, dir.path(), log, &notes);
  std::vector<std::string> drawn;
  for (const auto& entry : fs::directory_iterator(dir.path()))
    if (entry.path().extension() == ".dat" || entry.path().extension() == ".gp")
      drawn.push_back(entry.path().filename().string());
  std::sort(drawn.begin(), drawn.end());
  std::string list;
  for (const std::string& f : drawn) list += f + "\n";
  expect_view(folder, "plots.txt", list);
  for (const std::string& f : drawn) expect_view(folder, f, read_text(dir.file(f)));
}

TEST(FixtureViews, Dependability) { check_views("dependability"); }
TEST(FixtureViews, Speed) { check_views("speed"); }

}  // namespace
}  // namespace rpclab::harness
