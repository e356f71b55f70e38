// The verdict's sentences, from records planted through the same summary
// the run loop uses (no network): cells that lost or ran calls twice, a
// remedy that kept every call safe at a price, clean cells and what their
// trials bound, failed cells and trials, and a run with nothing in it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/cli/experiments.h"
#include "harness/dependability/dependability_plots.h"
#include "harness/dependability/verdict.h"
#include "process/command_log.h"
#include "support/temp_dir.h"
#include "harness/run/result_record.h"
#include "harness/run/run_cells.h"
#include "harness/run/trial_run.h"
#include "sunrpc/sunrpc_settings.h"
#include "synthetic_trials.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

// sunrpc-udp retransmitting every 20 ms under 5% duplication: 3 trials of
// 2 clients x 500 calls.
CellConfig dup_cell(const std::string& transport = "sunrpc-udp") {
  CellConfig c = load_cell(0);
  c.block = "faults";
  c.transport = transport;
  if (transport != "sunrpc-udp") c.settings = {};
  c.faults.dup_pct = 5;
  c.clients = 2;
  c.calls_per_client = 500;
  c.trials = 3;
  return c;
}

// A trial whose clients' calls were `silent` silent duplicates each, and of
// whose other calls `indeterminate` ran but were reported failed.
json planted(const CellConfig& cell, uint32_t number, uint64_t silent, uint64_t indeterminate, double wall_s) {
  json t = trial(cell, number, std::vector<uint64_t>(cell.clients, silent), silent ? 1 : 0, 1.0);
  t["classes"]["indeterminate"] = indeterminate;
  t["classes"]["correct"] = t["classes"]["correct"].get<uint64_t>() - indeterminate;
  t["client_wall_s"] = wall_s;
  return t;
}

CellRecord record_of(const CellConfig& cell, const std::vector<json>& trials, size_t index) {
  return cell_record(find_experiment("dependability"), cell, index, "/nowhere", typed_trials(trials), {}, "test");
}

CellRecord failed_cell(const CellConfig& cell, size_t index) {
  TrialRecord t = trial_record(cell, TrialPlace{index, 1, 3, "/nowhere"}, "test");
  mark(t, "failed", "cannot create namespace");
  return cell_record(find_experiment("dependability"), cell, index, "/nowhere", {t}, {}, "test");
}

TEST(Verdict, NothingRecordedSaysSo) {
  EXPECT_EQ(verdict_lines({}), std::vector<std::string>{"No dependability cell has a record: nothing to judge."});
}

TEST(Verdict, NamesTheLossesTheRemedysPriceAndTheCleanCells) {
  CellConfig plain = dup_cell();
  CellConfig drc = dup_cell();
  drc.settings.set(sunrpc::kReplyCache, 1024);
  CellConfig grpc = dup_cell("grpc");
  std::vector<CellRecord> records = {
      // A cascade in trials 1 and 3: 45 silent duplicates of 500 per client.
      record_of(plain, {planted(plain, 1, 45, 0, 2.5), planted(plain, 2, 0, 0, 2.5), planted(plain, 3, 20, 0, 2.5)}, 1),
      // The reply cache: none twice, 958 of 1,000 calls told failed although they ran.
      record_of(drc, {planted(drc, 1, 0, 958, 10), planted(drc, 2, 0, 958, 10), planted(drc, 3, 0, 958, 10)}, 2),
      record_of(grpc, {planted(grpc, 1, 0, 0, 1), planted(grpc, 2, 0, 0, 1), planted(grpc, 3, 0, 0, 1)}, 3)};
  std::vector<std::string> expected = {
      "sunrpc-udp retry 20 ms x2 clients under dup 5% both: silent errors in 2 of 3 trials (up to 90,000 per million "
      "calls in a trial), calls run twice in 2 of 3 trials (up to 90,000 per million).",
      "sunrpc-udp retry 20 ms +drc x2 clients under dup 5% both: nothing lost or run twice in all 3 trials, at a "
      "price: 2,874 of 3,000 calls (96%) reported failed although they ran; 20.0 ms per call (sunrpc-udp retry 20 ms "
      "x2 clients without it: 5.0 ms).",
      "Clean in all 3 trials (3,000 calls), nothing lost or run twice: dup 5% both: grpc x2 clients. So few clean "
      "trials still allow an error in up to 71% of trials (Clopper-Pearson), and a rate up to 1,279 per million calls "
      "if calls were independent (Wilson, over the fewest)."};
  EXPECT_EQ(verdict_lines(records), expected);
}

TEST(Verdict, AllCleanSaysNothingWasLostAndGroupsTheCellsByCondition) {
  CellConfig udp = dup_cell(), tcp = dup_cell("sunrpc-tcp"), quiet = dup_cell("grpc");
  quiet.faults = {};
  auto clean = [](const CellConfig& c, size_t i) {
    return record_of(c, {planted(c, 1, 0, 0, 1), planted(c, 2, 0, 0, 1), planted(c, 3, 0, 0, 1)}, i);
  };
  std::vector<std::string> lines = verdict_lines({clean(udp, 1), clean(tcp, 2), clean(quiet, 3)});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "No call was lost or run twice in any trial of the 3 cells measured.");
  EXPECT_EQ(lines[1].rfind("Clean in all 3 trials (3,000 calls each), nothing lost or run twice: dup 5% both: "
                           "sunrpc-udp retry 20 ms x2 clients, sunrpc-tcp x2 clients; no faults: grpc x2 clients. ",
                           0),
            0u)
      << lines[1];
}

TEST(Verdict, NamesAFailedCellAndFailedTrials) {
  CellConfig tcp = dup_cell("sunrpc-tcp"), grpc = dup_cell("grpc");
  TrialRecord broken = trial_record(tcp, TrialPlace{1, 2, 3, "/nowhere"}, "test");
  mark(broken, "failed", "server died mid-run");
  std::vector<TrialRecord> trials = typed_trials({planted(tcp, 1, 0, 0, 1), planted(tcp, 3, 0, 0, 1)});
  trials.insert(trials.begin() + 1, broken);
  std::vector<CellRecord> records = {
      cell_record(find_experiment("dependability"), tcp, 1, "/nowhere", trials, {}, "test"), failed_cell(grpc, 2)};
  std::vector<std::string> lines = verdict_lines(records);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "No call was lost or run twice in any trial of the 1 cell measured.");
  EXPECT_EQ(lines[2], "sunrpc-tcp x2 clients under dup 5% both: 1 of 3 trials failed and are left out of its "
                      "figures (server died mid-run).");
  EXPECT_EQ(lines[3], "Not measured, 1 of 2 cells: failed grpc x2 clients under dup 5% both (why: \"Cells not "
                      "measured\" in report.txt).");
}

TEST(Verdict, IsTheReportsFirstTableAndNotAmongTheTerminalsOthers) {
  const Experiment& e = find_experiment("dependability");
  CellConfig grpc = dup_cell("grpc");
  std::vector<CellRecord> records = {
      record_of(grpc, {planted(grpc, 1, 0, 0, 1), planted(grpc, 2, 0, 0, 1), planted(grpc, 3, 0, 0, 1)}, 1)};
  ReportOptions options;
  std::string report = e.report(records, options);
  EXPECT_EQ(report.rfind("Verdict, from this run's records", 0), 0u) << report.substr(0, 200);
  EXPECT_EQ(e.headline(records, options).rfind("Verdict", 0), 0u);
  options.brief = true;
  EXPECT_EQ(e.report(records, options).find("Verdict"), std::string::npos) << "the run prints it last, apart";
  options.brief = false;
  options.headline = false;
  EXPECT_EQ(e.report(records, options).find("Verdict"), std::string::npos) << "report.html draws it apart, first";
}

// A remedy's zero beside its price (issue 39): the reply cache's "0 / 0" in
// Levy's faults table and in the faults plot's legend comes with the share
// of calls it reported failed although they ran; a cell that paid nothing
// shows its figures bare.
std::vector<CellRecord> remedy_and_control() {
  CellConfig drc = dup_cell(), grpc = dup_cell("grpc");
  drc.settings.set(sunrpc::kReplyCache, 1024);
  return {record_of(drc, {planted(drc, 1, 0, 958, 10), planted(drc, 2, 0, 958, 10), planted(drc, 3, 0, 958, 10)}, 1),
          record_of(grpc, {planted(grpc, 1, 0, 0, 1), planted(grpc, 2, 0, 0, 1), planted(grpc, 3, 0, 0, 1)}, 2)};
}

TEST(RemedyPrice, LevysFaultsTableShowsTheZerosPrice) {
  ReportOptions options;
  options.tables = {"levy-faults"};
  for (bool markdown : {false, true}) {
    options.markdown = markdown;
    std::string table = find_experiment("dependability").report(remedy_and_control(), options);
    EXPECT_NE(table.find("0 / 0 (96% told failed)"), std::string::npos) << table;
    EXPECT_NE(table.find("(N% told failed): the share of the cell's calls the server ran although"), std::string::npos)
        << table;
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("grpc") == std::string::npos) continue;
      EXPECT_EQ(line.find("told failed"), std::string::npos) << line;
    }
  }
}

TEST(RemedyPrice, TheFaultsPlotsLegendShowsIt) {
  test::TempDir dir;
  process::CommandLog log;
  std::vector<std::string> notes;
  dependability_plots(remedy_and_control(), dir.path(), log, &notes);
  std::ifstream in(dir.path() + "/silent-vs-faults.gp");
  std::stringstream gp;
  gp << in.rdbuf();
  EXPECT_NE(gp.str().find("sunrpc-udp retry 20 ms +drc x2 clients (96% told failed)"), std::string::npos) << gp.str();
  EXPECT_EQ(gp.str().find("grpc (" ), std::string::npos) << gp.str();
}

}  // namespace
}  // namespace rpclab::harness
