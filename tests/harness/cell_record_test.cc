// A dependability cell's record made from hand-made trial records (the
// cascade of issue 10 in one trial of five, failed trials), and the lines
// the report prints from such records.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>

#include "common/atomic_file.h"
#include "harness/placement/cell_events.h"
#include "harness/dependability/classify.h"
#include "harness/dependability/dependability_report.h"
#include "harness/cli/experiments.h"
#include "harness/run/result_record.h"
#include "harness/run/run_cells.h"
#include "harness/record/trial_counts.h"
#include "harness/report/html_report.h"
#include "harness/run/trial_run.h"
#include "process/command_log.h"
#include "support/temp_dir.h"
#include "synthetic_records.h"
#include "synthetic_trials.h"
#include "netem/config/fault_profile.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

json failed_trial(const CellConfig& cell, uint32_t number, const std::string& why) {
  TrialRecord t = trial_record(cell, TrialPlace{1, number, 5, "/nowhere"}, "test");
  mark(t, "failed", why);
  return t;
}

// The cell's record as results.jsonl holds it.
json record_of(const CellConfig& cell, const std::vector<json>& trials) {
  return cell_record(find_experiment("dependability"), cell, 3, "/nowhere", typed_trials(trials), {}, "test");
}

// An event phase that says it did not do all it should (ss -K closing
// nothing) is a warning of the trial, named by event and phase, and the
// cell's record gathers every trial's, with the occurrences each had.
TEST(CellRecord, EventWarningsAndOccurrencesComeUpFromTheTrials) {
  json events = json::parse(R"([
    {"kind":"reset","event":0,"occurrence":0,"start":{"tool":"ss","closed_at_server":0,"closed_at_client":0,
     "warning":"ss -K closed none of the established connections"}},
    {"kind":"reset","event":0,"occurrence":1,"start":{"tool":"ss","closed_at_server":1,"closed_at_client":1}}])");
  std::vector<std::string> w = event_warnings(events);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "reset #0 start: ss -K closed none of the established connections");
  CellConfig cell = load_cell(0);
  cell.faults = netem::load_profile("reset");
  std::vector<json> trials = {trial(cell, 1, std::vector<uint64_t>(8, 0), 0, 1.0),
                              trial(cell, 2, std::vector<uint64_t>(8, 0), 0, 1.0)};
  trials[0]["events"] = events;
  trials[0]["warnings"] = w;
  trials[1]["events"] = json::array({events[1]});
  json r = record_of(cell, trials);
  EXPECT_EQ(r["events"]["occurrences_per_trial"], json({2, 1}));
  EXPECT_EQ(r["events"]["warnings"], json({"trial 1: " + w[0]}));
  EXPECT_EQ(r["per_trial"][0]["warnings"], json(w)) << "each trial keeps its own";
}

TEST(CellRecord, HoldsItsTrialsAndTheFiguresOverThem) {
  CellConfig cell = load_cell(20);
  json r = record_of(cell, one_cascade_in_five(cell));
  EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(r["trials"], 5);
  EXPECT_EQ(r["trials_ok"], 5);
  EXPECT_TRUE(r["trials_failed"].empty());
  EXPECT_EQ(r["calls"], 500000u);
  EXPECT_EQ(r["calls_planned"], 500000u);
  EXPECT_EQ(r["classes"]["silent_duplicates"], 26691u);
  EXPECT_NEAR(r["silent_per_million"]["value"].get<double>(), 53382, 0.01);  // pooled over the five
  const json& silent = r["over_trials"]["silent"];
  EXPECT_EQ(silent["trials_with_events"], 1u);
  EXPECT_EQ(silent["per_trial_per_million"].size(), 5u);
  EXPECT_TRUE(silent["between_trials"]["far_beyond_binomial"].get<bool>());
  EXPECT_TRUE(r["over_trials"].contains("duplicate_calls"));
  EXPECT_TRUE(r["over_trials"].contains("extra_executions"));
  EXPECT_EQ(r["episodes"]["onsets_per_trial"], json({1, 0, 0, 0, 0}));
  EXPECT_EQ(r["episodes"]["first_onset_s_per_trial"][0], 0.66);
  EXPECT_NE(r["episodes"]["note"].get<std::string>().find("26,691 errors per onset"), std::string::npos);
  EXPECT_DOUBLE_EQ(r["load"]["server_cpu_run_queue"].get<double>(), (20.5 + 4 * 21.5) / 5);
  EXPECT_EQ(r["load"]["server_cpu_run_queue_range"], json({20.5, 21.5}));
  EXPECT_DOUBLE_EQ(r["load"]["server_wait_us_per_timeslice"].get<double>(), 500.0);  // 2.5 s over 5,000 slices
  EXPECT_EQ(r["cell_index"], 3);
  EXPECT_EQ(r["per_trial"].size(), 5u);
  EXPECT_FALSE(r["per_trial"][0].contains("cell")) << "the cell says once what its trials share";
  EXPECT_EQ(r["per_trial"][0]["trial"], 1);
}

TEST(CellRecord, FailedTrialsAreNamedAndTheFiguresUseTheRest) {
  CellConfig cell = load_cell(5);
  std::vector<json> trials = one_cascade_in_five(cell);
  trials[1] = failed_trial(cell, 2, "server died mid-run (killed by SIGKILL)");
  trials[3] = failed_trial(cell, 4, "cannot create namespace");
  json r = record_of(cell, trials);
  EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(r["trials_ok"], 3);
  ASSERT_EQ(r["trials_failed"].size(), 2u);
  EXPECT_EQ(r["trials_failed"][1]["trial"], 4);
  EXPECT_EQ(r["trials_failed"][1]["reason"], "cannot create namespace");
  EXPECT_EQ(r["reason"], "2 of 5 trials failed, the figures are over the other 3 (trial 2: server died mid-run "
                         "(killed by SIGKILL))");
  EXPECT_EQ(r["over_trials"]["silent"]["trials"], 3u);
  EXPECT_EQ(r["calls"], 300000u);
}

TEST(CellRecord, NoTrialOkIsAFailedCellAndASkippedTrialSkipsIt) {
  CellConfig cell = load_cell(0);
  cell.trials = 2;
  json failed = record_of(cell, {failed_trial(cell, 1, "no server"), failed_trial(cell, 2, "no server")});
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["reason"], "all 2 trials failed; trial 1: no server");
  EXPECT_TRUE(failed["silent_per_million"]["value"].is_null()) << "promised fields are there, as null";
  TrialRecord skipped_trial = trial_record(cell, TrialPlace{1, 1, 2, "/nowhere"}, "test");
  mark(skipped_trial, "skipped", "the two-host topology needs root");
  json skipped = record_of(cell, {skipped_trial});
  EXPECT_EQ(skipped["status"], "skipped");
  EXPECT_EQ(skipped["reason"], "the two-host topology needs root");
}

ReportOptions report_options() {
  ReportOptions o;
  o.data_dir = RPCLAB_SOURCE_DIR "/docs/data";
  return o;
}

// Issue 26: cells whose errors are one cascade of 26,691 calls in one
// trial, none in the others: of five trials (the reports show their range)
// and of ten (a bootstrap over trials). Their calls are not independent, so
// an interval over them (Wilson's: 53,382 [52,760-54,009] for the five) is
// far narrower than what the trials can tell; every interval any view of
// the run gives (report.txt, its Markdown, report.html and the plots' bars)
// must be at least as wide as the standard error between the trials' rates.
double standard_error_between_trials(const json& record) {
  std::vector<double> rates = record["over_trials"]["silent"]["per_trial_per_million"].get<std::vector<double>>();
  double mean = std::accumulate(rates.begin(), rates.end(), 0.0) / rates.size(), ss = 0;
  for (double r : rates) ss += (r - mean) * (r - mean);
  return std::sqrt(ss / (rates.size() - 1)) / std::sqrt(rates.size());
}

// Every "[a-b]" (a bootstrap over trials) and "(a-b)" (with fewer than 10
// trials, their range) in `text`, as numbers.
std::vector<std::pair<double, double>> printed_intervals(const std::string& text) {
  std::regex interval(R"([\[(]([0-9,.]+)-([0-9,.]+)[\])])");
  auto number = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return std::stod(s);
  };
  std::vector<std::pair<double, double>> out;
  for (auto m = std::sregex_iterator(text.begin(), text.end(), interval); m != std::sregex_iterator(); ++m)
    out.push_back({number((*m)[1]), number((*m)[2])});
  return out;
}

TEST(DependabilityReport, NoIntervalIsNarrowerThanTheSpreadBetweenTrials) {
  CellConfig five = load_cell(10), ten = load_cell(20);
  ten.trials = 10;
  std::vector<json> ten_trials = one_cascade_in_five(ten);
  for (uint32_t i = 6; i <= 10; ++i) ten_trials.push_back(trial(ten, i, std::vector<uint64_t>(8, 0), 0, 21.5));
  std::vector<json> records = {record_of(five, one_cascade_in_five(five)), record_of(ten, ten_trials)};
  records[1]["cell_index"] = 2;
  // The narrower of the two cells' spreads: one bound for every interval.
  double standard_error = std::min(standard_error_between_trials(records[0]), standard_error_between_trials(records[1]));
  ASSERT_GT(standard_error, 25000) << "the cascade makes the trials differ (53,382 and 26,691)";
  ASSERT_EQ(records[1]["over_trials"]["silent"]["trials"], 10);

  std::vector<std::pair<std::string, std::string>> views;
  for (bool markdown : {false, true}) {
    ReportOptions o = report_options();
    o.markdown = markdown;
    views.push_back({markdown ? "Markdown" : "text", dependability_report(typed_records(records), o)});
  }
  // report.html and the plots, as a run folder makes them.
  test::TempDir dir;
  std::string lines;
  for (const json& r : records) lines += r.dump() + "\n";
  write_file_atomically(dir.file("results.jsonl"), lines);
  write_file_atomically(dir.file("metadata.json"),
                        json{{"experiment", "dependability"}, {"preset", "levy1989"}, {"run_id", "r1"}}.dump());
  process::CommandLog log;
  std::vector<std::string> notes;
  write_html_report(find_experiment("dependability"), dir.path(), log, &notes);
  views.push_back({"report.html", read_whole_file(dir.file("report.html"))});
  ASSERT_TRUE(std::filesystem::exists(dir.file("silent-vs-load.dat"))) << "no plot of silent errors vs load";
  // The plot's data: "x value low high" per point.
  std::string bars;
  std::ifstream dat(dir.file("silent-vs-load.dat"));
  for (std::string line; std::getline(dat, line);) {
    std::istringstream fields(line);
    double x, value, low, high;
    if (line.empty() || line[0] == '#' || !(fields >> x >> value >> low >> high)) continue;
    bars += fmt::format("bar ({}-{})\n", low, high);
  }
  views.push_back({"silent-vs-load.dat", bars});

  for (const auto& [view, text] : views) {
    std::vector<std::pair<double, double>> intervals = printed_intervals(text);
    EXPECT_GE(intervals.size(), 2u) << view << " gives no spread over trials for the two cells:\n" << text;
    for (const auto& [low, high] : intervals)
      EXPECT_GE(high - low, standard_error) << view << ": " << low << "-" << high
                                            << " is narrower than the trials allow:\n" << text;
  }
}

TEST(DependabilityReport, ACellsLineSaysInHowManyTrialsAndTheSpread) {
  CellConfig hit = load_cell(20), clean = load_cell(0);
  std::vector<json> clean_trials;
  for (uint32_t i = 1; i <= 5; ++i) clean_trials.push_back(trial(clean, i, std::vector<uint64_t>(8, 0), 0, 1.2));
  std::vector<json> records = {record_of(clean, clean_trials), record_of(hit, one_cascade_in_five(hit))};
  std::string text = dependability_report(typed_records(records), report_options());
  EXPECT_NE(text.find("266,910 in 1 of 5 trials (0 in 4)"), std::string::npos) << text;
  EXPECT_NE(text.find("0 in all 5 trials (<=52%)"), std::string::npos) << text;
  EXPECT_NE(text.find("1,0,0,0,0"), std::string::npos) << "onsets per trial";
  EXPECT_NE(text.find("53,382 / 53,382"), std::string::npos) << "Levy's layout: silent / duplicate calls";
  EXPECT_NE(text.find("silent errors: spread between trials"), std::string::npos) << text;
  EXPECT_NE(text.find("first onset 660.0 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("server CPU: runnable tasks"), std::string::npos);
  EXPECT_NE(text.find("21.3"), std::string::npos) << "the hit cell's server CPU run queue, mean over trials";
  EXPECT_NE(text.find("8 clients a cell"), std::string::npos) << "the client count once, in the title";
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    EXPECT_LE(end - start, 120u) << text.substr(start, end - start);
}

TEST(DependabilityReport, MarkdownTablesForDocs) {
  CellConfig hit = load_cell(20);
  ReportOptions o = report_options();
  o.markdown = true;
  o.tables = {"trials-load"};
  std::string md = dependability_report(typed_records({record_of(hit, one_cascade_in_five(hit))}), o);
  EXPECT_NE(md.find("| sunrpc-udp retry 20 ms | 20 | 266,910 in 1 of 5 trials (0 in 4) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| notes |"), std::string::npos) << md;
  EXPECT_EQ(md.find("Levy 1989"), std::string::npos) << "only the table asked for";
}

}  // namespace
}  // namespace rpclab::harness
