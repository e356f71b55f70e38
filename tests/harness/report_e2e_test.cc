// `rpclab report` and tools/docs-tables.sh on a run folder made by hand:
// the tables docs quote come from a named run, with its id and date, and a
// refresh replaces exactly the blocks of that run's preset.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <regex>

#include "common/atomic_file.h"
#include "harness/cli/experiments.h"
#include "harness/run/run_cells.h"
#include "harness/run/run_folder.h"
#include "harness_e2e_util.h"
#include "support/temp_dir.h"
#include "synthetic_records.h"
#include "synthetic_trials.h"

namespace rpclab::test {
namespace {

using harness::find_experiment;
using nlohmann::json;
using namespace std::chrono_literals;

// A levy1989 run of two load cells, one of them with a cascade in one trial.
std::string synthetic_run(const TempDir& dir) {
  harness::RunFolder folder(dir.file("results"), dir.file("run"), harness::FolderUse::kNew);
  folder.write_metadata(json{{"experiment", "dependability"},
                             {"preset", "levy1989"},
                             {"command_line", "build/rpclab dependability --preset levy1989"},
                             {"started_at", "2026-11-24T08:00:00.000Z"}}
                            .get<harness::RunMetadata>());
  harness::CellConfig hit = harness::load_cell(20), clean = harness::load_cell(0);
  std::vector<json> clean_trials;
  for (uint32_t i = 1; i <= 5; ++i) clean_trials.push_back(harness::trial(clean, i, std::vector<uint64_t>(8, 0), 0, 1.1));
  const harness::Experiment& e = find_experiment("dependability");
  folder.append(harness::cell_record(e, clean, 1, dir.file("run/cells/001"), harness::typed_trials(clean_trials), {},
                                     folder.run_id()));
  folder.append(harness::cell_record(e, hit, 2, dir.file("run/cells/002"),
                                     harness::typed_trials(harness::one_cascade_in_five(hit)), {}, folder.run_id()));
  return folder.run_id();
}

TEST(ReportCommand, MarkdownOfARunFolderCarriesItsIdAndDate) {
  TempDir dir;
  std::string id = synthetic_run(dir);
  ProcessResult r = run_program({bin("rpclab"), "report", "--markdown", "--table", "trials-load", dir.file("run")}, 30s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Run `" + id + "` of 2026-11-24 (`build/rpclab dependability --preset levy1989`; 2 cells, "
                        "10 trials).", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("| sunrpc-udp retry 20 ms | 0 | 0 in all 5 trials (<=52%) |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("|  | 20 | 266,910 in 1 of 5 trials (0 in 4) |"), std::string::npos) << r.out;
  // Text, every table: the same figures, aligned.
  ProcessResult text = run_program({bin("rpclab"), "report", dir.file("run")}, 30s);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("266,910 in 1 of 5 trials (0 in 4)"), std::string::npos);
  EXPECT_NE(text.out.find("Sun RPC (udp) (Levy 1989)"), std::string::npos);
}

TEST(ReportCommand, DocsTablesRefreshesOnlyTheBlocksOfTheRunsPreset) {
  TempDir dir;
  std::string id = synthetic_run(dir);
  std::string doc = "# A page\n\nBefore.\n\n<!-- begin rpclab report levy1989 trials-load -->\nstale table\n"
                    "<!-- end rpclab report -->\n\nBetween.\n\n<!-- begin rpclab report remedies classes -->\n"
                    "another run's table\n<!-- end rpclab report -->\nAfter.\n";
  write_file_atomically(dir.file("page.md"), doc);
  ProcessResult r = run_program(
      {RPCLAB_SOURCE_DIR "/tools/docs-tables.sh", bin("rpclab"), dir.file("run"), dir.file("page.md")}, 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 table(s) refreshed"), std::string::npos) << r.out;
  std::string page = read_whole_file(dir.file("page.md"));
  EXPECT_EQ(page.find("stale table"), std::string::npos) << page;
  EXPECT_NE(page.find("Run `" + id + "`"), std::string::npos) << page;
  EXPECT_NE(page.find("266,910 in 1 of 5 trials (0 in 4)"), std::string::npos) << page;
  EXPECT_NE(page.find("another run's table"), std::string::npos) << "a remedies block is not this run's to refresh";
  EXPECT_EQ(page.rfind("# A page\n\nBefore.\n\n<!-- begin rpclab report levy1989 trials-load -->\n", 0), 0u);
  EXPECT_NE(page.find("<!-- end rpclab report -->\n\nBetween.\n"), std::string::npos) << page;
  EXPECT_NE(page.find("<!-- end rpclab report -->\nAfter.\n"), std::string::npos) << page;
  // Refreshing again changes nothing: the block holds the command's output alone.
  run_program({RPCLAB_SOURCE_DIR "/tools/docs-tables.sh", bin("rpclab"), dir.file("run"), dir.file("page.md")}, 60s);
  EXPECT_EQ(read_whole_file(dir.file("page.md")), page);
}

// Both experiments have a preset named levy1989: without a file named,
// docs-tables refreshes the results page of the run's experiment only
// (docs/results/EXPERIMENT.md), so a speed run never meets the
// dependability page's tables (nor the reverse).
TEST(ReportCommand, DocsTablesRefreshesThePageOfTheRunsExperiment) {
  TempDir dir;
  harness::RunFolder folder(dir.file("results"), dir.file("run"), harness::FolderUse::kNew);
  folder.write_metadata(json{{"experiment", "speed"},
                             {"preset", "levy1989"},
                             {"command_line", "build/rpclab speed --preset levy1989"},
                             {"started_at", "2026-11-26T08:00:00.000Z"}}
                            .get<harness::RunMetadata>());
  folder.append(harness::speed_record("raw-tcp", 1, 12, {100, 101, 99}));
  folder.append(harness::speed_record("grpc", 1, 12, {103, 104, 102}));
  ASSERT_EQ(::mkdir(dir.file("docs").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(dir.file("docs/results").c_str(), 0755), 0);
  const std::string dependability = "<!-- begin rpclab report levy1989 levy-load -->\nstale\n<!-- end rpclab report -->\n";
  write_file_atomically(dir.file("docs/results/dependability.md"), dependability);
  write_file_atomically(dir.file("docs/results/speed.md"),
                        "<!-- begin rpclab report levy1989 loopback-persistent -->\nstale\n<!-- end rpclab report -->\n");
  ProcessResult r = run_program({"/bin/sh", "-c",
                                 "cd \"$1\" && \"$2\" \"$3\" run", "sh", dir.path(),
                                 RPCLAB_SOURCE_DIR "/tools/docs-tables.sh", bin("rpclab")},
                                60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("docs/results/speed.md: 1 table(s) refreshed"), std::string::npos) << r.out;
  std::string page = read_whole_file(dir.file("docs/results/speed.md"));
  EXPECT_EQ(page.find("stale"), std::string::npos) << page;
  EXPECT_NE(page.find("Per-call latency, persistent connection, loopback"), std::string::npos) << page;
  EXPECT_EQ(read_whole_file(dir.file("docs/results/dependability.md")), dependability);
}


// docs/presets.md quotes `rpclab presets --markdown` for each experiment
// (make docs-presets): the page says what the presets plan today. Its
// tables are planned with the adapters make builds; without them the
// dependability and speed tables lack their rows, so the check needs them.
TEST(PresetsPage, QuotesWhatThePresetsPlan) {
  std::string page = read_whole_file(RPCLAB_SOURCE_DIR "/docs/presets.md");
  for (const std::string experiment : {"dependability", "speed", "nfs"}) {
    ProcessResult r = run_program({bin("rpclab"), "presets", "--markdown", experiment}, 60s);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_NE(r.out.find("### `"), std::string::npos) << experiment << " has no preset:\n" << r.out;
    if (experiment != "nfs" && r.out.find("(adapter)") == std::string::npos)
      GTEST_SKIP() << "the adapters are not built (make builds them), so the presets plan without their rows";
    std::string begin = "<!-- begin rpclab presets " + experiment + " -->\n";
    size_t from = page.find(begin);
    ASSERT_NE(from, std::string::npos) << "docs/presets.md has no block for " << experiment;
    from += begin.size();
    size_t to = page.find("<!-- end rpclab presets -->", from);
    ASSERT_NE(to, std::string::npos);
    // An adapter the page plans with that this machine could not build
    // (tonic without Rust 1.88: a fresh Debian 12) leaves its rows out here.
    static const std::regex adapter_row(R"(([a-z0-9-]+) \(adapter\))");
    std::string block = page.substr(from, to - from);
    for (std::sregex_iterator it(block.begin(), block.end(), adapter_row), end; it != end; ++it)
      if (r.out.find((*it)[0].str()) == std::string::npos)
        GTEST_SKIP() << "this machine cannot build " << (*it)[1].str()
                     << ", which the page plans with (`rpclab adapter list` says why)";
    EXPECT_EQ(page.substr(from, to - from), r.out)
        << "docs/presets.md's " << experiment << " tables are not what the presets plan: make docs-presets";
  }
  // The terminal's form names every preset and its tables.
  ProcessResult text = run_program({bin("rpclab"), "presets", "dependability"}, 60s);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* want : {"dependability --preset levy1989", "table load", "table faults", "server load (CPU hogs)",
                           "--preset levy-surface"})
    EXPECT_NE(text.out.find(want), std::string::npos) << want << " missing:\n" << text.out;
  ProcessResult bad = run_program({bin("rpclab"), "presets", "bogus"}, 60s);
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
}

}  // namespace
}  // namespace rpclab::test
