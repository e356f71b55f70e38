// `rpclab compare` on run folders made by hand: identical runs differ
// nowhere (exit 0), one cell that differs is flagged (exit 1), cells only
// one run has are listed, what sets only how much a cell measures does not
// stop a match, trials are compared as trials, and bad input exits 2.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "common/atomic_file.h"
#include "harness/kit/stats.h"
#include "harness/record/episodes.h"
#include "harness/report/html_writer.h"
#include "harness/report/run_compare.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "synthetic_records.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using test::TempDir;

void write_run(const std::string& dir, const std::vector<json>& records) {
  std::filesystem::create_directories(dir);
  std::string lines;
  for (const json& r : records) lines += r.dump() + "\n";
  write_file_atomically(dir + "/results.jsonl", lines);
  write_file_atomically(dir + "/metadata.json",
                        json{{"experiment", records.front().value("experiment", "")}, {"run_id", dir}}.dump());
}

std::vector<json> two_cells(uint64_t udp_silent) {
  return {dependability_record("sunrpc-udp", 0, 20000, udp_silent), dependability_record("grpc", 0, 20000, 0)};
}

test::ProcessResult compare(const std::string& a, const std::string& b, std::vector<std::string> more = {}) {
  std::vector<std::string> argv = {test::bin("rpclab"), "compare", a, b};
  argv.insert(argv.end(), more.begin(), more.end());
  return test::run_program(argv);
}

// The comparison of `figure` in matched cell `cell` (from 0).
const CellComparison& figure_of(const RunComparison& c, size_t cell,
                                const std::string& figure = "silent errors per 1M calls") {
  for (const CellComparison& m : c.matched)
    if (m.cell == cell && m.figure == figure) return m;
  throw std::runtime_error("no " + figure + " for cell " + std::to_string(cell));
}

// compare_runs of the records as results.jsonl holds them.
RunComparison compare_records(const std::vector<json>& a, const std::vector<json>& b, double alpha) {
  return compare_runs(typed_records(a), typed_records(b), alpha);
}

// A cell with `trials` ok trials of 1,000 calls, `silent` silent duplicates in each.
json with_trials(json r, const std::vector<uint64_t>& silent) {
  r["per_trial"] = json::array();
  for (size_t i = 0; i < silent.size(); ++i)
    r["per_trial"].push_back({{"trial", i + 1}, {"status", "ok"}, {"calls", 1000},
                              {"classes", {{"silent_loss", 0}, {"silent_duplicates", silent[i]}}}});
  return r;
}

TEST(Compare, IdenticalRunsDifferNowhere) {
  TempDir dir;
  write_run(dir.file("a"), two_cells(30));
  write_run(dir.file("b"), two_cells(30));
  RunComparison c = compare_records(two_cells(30), two_cells(30), 0.01);
  ASSERT_EQ(c.cells, 2u);
  EXPECT_FALSE(c.any_differs());
  EXPECT_EQ(figure_of(c, 0).test, "Fisher exact, pooled calls") << "one trial a side: the pooled counts";
  EXPECT_NEAR(figure_of(c, 0).p, 1.0, 1e-9);
  // Every proportion the records hold is compared, not only silent errors.
  for (const char* figure : {"duplicate calls per 1M calls", "indeterminate per 1M calls", "clean failures per 1M calls"})
    EXPECT_FALSE(figure_of(c, 1, figure).differs) << figure;
  test::ProcessResult r = compare(dir.file("a"), dir.file("b"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\nno difference at alpha 0.01 (exit 0): 8 of 8 figures testable\n", r.out);
  test::ProcessResult all = compare(dir.file("a"), dir.file("b"), {"--all"});
  EXPECT_EQ(all.exit_code, 0) << all.out << all.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "no (p >= 0.01)", all.out) << "every column says something";
}

TEST(Compare, OneCellThatDiffersIsFlaggedAndExitsOne) {
  TempDir dir;
  write_run(dir.file("a"), two_cells(0));
  write_run(dir.file("b"), two_cells(300));
  RunComparison c = compare_records(two_cells(0), two_cells(300), 0.01);
  ASSERT_EQ(c.cells, 2u);
  EXPECT_TRUE(figure_of(c, 0).differs) << figure_of(c, 0).p;
  EXPECT_FALSE(figure_of(c, 1).differs);
  EXPECT_FALSE(figure_of(c, 0).change_pct()) << "from 0: no percent";
  test::ProcessResult r = compare(dir.file("a"), dir.file("b"), {"--html", dir.file("compare.html")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\n  silent: A 0.0 (0 of 20,000), B 15000.0 (300 of 20,000) (from 0, p ", r.out);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\nsilent, duplicate differ at alpha 0.01 (exit 1) in 1 cell: 8 of 8 figures testable\n", r.out);
  std::string page = read_whole_file(dir.file("compare.html"));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "DIFFERS", page);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "<table>", page);
  test::ProcessResult j = compare(dir.file("a"), dir.file("b"), {"--format", "json"});
  EXPECT_EQ(j.exit_code, 1);
  json out = json::parse(j.out);
  EXPECT_TRUE(out["differs"].get<bool>());
  EXPECT_TRUE(out["matched"][0]["differs"].get<bool>());
  EXPECT_EQ(out["matched"][0]["figure"], "silent errors per 1M calls");
  EXPECT_EQ(out["cells"], 2);
  // Numbers as numbers: silent errors per 1M calls, the text beside them.
  ASSERT_TRUE(out["matched"][1]["a"].is_number()) << out["matched"][1];
  EXPECT_DOUBLE_EQ(out["matched"][0]["b"].get<double>(), 1e6 * 300 / 20000);
  EXPECT_DOUBLE_EQ(out["matched"][0]["a"].get<double>(), 0);
  EXPECT_TRUE(out["matched"][0]["a_text"].is_string());
  EXPECT_TRUE(out["matched"][0]["p"].is_number());
}

// 3 trials a side cannot reach 0.01 however far apart (the smallest
// permutation p is 2/20): each such cell says so, the summary counts them,
// and with the silent rate untestable the exit code is 3 (cannot tell),
// not 0, so a CI gate does not pass on a comparison that could not have failed.
TEST(Compare, TrialsTooFewForAlphaAreUntestableSaidCountedAndExitThree) {
  json base = dependability_record("sunrpc-udp", 0, 3000, 0);
  std::vector<json> a = {with_trials(base, {0, 0, 0})}, b = {with_trials(base, {43, 30, 40})};
  RunComparison c = compare_records(a, b, 0.01);
  ASSERT_EQ(c.cells, 1u);
  ASSERT_TRUE(figure_of(c, 0).smallest_p);
  EXPECT_NEAR(*figure_of(c, 0).smallest_p, 0.1, 1e-12);
  EXPECT_EQ(c.untestable(), 4u) << "each of the four proportions";
  EXPECT_TRUE(c.nothing_testable());
  TempDir dir;
  write_run(dir.file("a"), a);
  write_run(dir.file("b"), b);
  test::ProcessResult r = compare(dir.file("a"), dir.file("b"), {"--all"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "untestable with 3 vs 3 trials (smallest p = 0.1)", r.out);
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "cannot tell silent, duplicate (exit 3): 0 of 4 figures testable; 4 had 3 vs 3 trials (p >= 0.1)",
                      r.out);
  test::ProcessResult j = compare(dir.file("a"), dir.file("b"), {"--format", "json", "--alpha", "0.2"});
  EXPECT_EQ(j.exit_code, 1) << "at alpha 0.2, 3 trials a side can be tested, and p = 0.1 differs: " << j.out;
  json out = json::parse(j.out);
  EXPECT_EQ(out["untestable"], 0);
  EXPECT_TRUE(out["matched"][0]["testable"].get<bool>());
  EXPECT_EQ(out["matched"][0]["figure"], "silent errors per 1M calls");
  EXPECT_DOUBLE_EQ(out["matched"][0]["smallest_p"].get<double>(), 0.1);
}

TEST(Stats, SmallestPermutationP) {
  EXPECT_NEAR(permutation_smallest_p(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(permutation_smallest_p(5, 5), 2.0 / 252, 1e-12);
  EXPECT_NEAR(permutation_smallest_p(2, 3), 1.0 / 10, 1e-12);
  EXPECT_EQ(permutation_smallest_p(0, 3), 1.0);
}

// A quick-like pair of runs: 15 cells of 3 trials, alike. No silent or
// duplicate rate can be told apart at 0.01 (3 vs 3 trials: p >= 0.1), so
// compare exits 3 and its last line says how many figures could be
// tested, how many not, why, and how many trials would do; the default
// output is within 100 columns however long the labels.
std::vector<json> quick_like(size_t trials, size_t planted_cell, uint64_t planted) {
  std::vector<json> out;
  for (int cell = 0; cell < 15; ++cell) {
    uint64_t silent_each = size_t(cell) == planted_cell ? planted : 0;
    json r = dependability_record("sunrpc-udp", cell, 1000 * trials, silent_each * trials);
    r["label"] = fmt::format("sunrpc-udp two-host persistent dup 5% both retry 20ms drc, a long quick label {}", cell);
    std::vector<uint64_t> silent(trials, silent_each);
    out.push_back(with_trials(r, silent));
  }
  return out;
}

std::string last_line(const std::string& out) {
  std::string s = out.substr(0, out.find_last_not_of('\n') + 1);
  return s.substr(s.find_last_of('\n') + 1);
}

TEST(Compare, QuickLikeRunsCannotTellAndExitThree) {
  TempDir dir;
  write_run(dir.file("a"), quick_like(3, 99, 0));
  write_run(dir.file("b"), quick_like(3, 4, 40));
  test::ProcessResult r = compare(dir.file("a"), dir.file("b"));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(last_line(r.out),
            "cannot tell silent, duplicate (exit 3): 0 of 60 figures testable; 60 had 3 vs 3 trials (p >= 0.1)");
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\n5+ trials a side reach alpha 0.01 (--trials 5 in both runs)\n", r.out);
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "0 figures differ, 0 alike, 60 untestable (--all for every row)", r.out);
  // Asked about only what 3 trials cannot test either: still 3; the JSON says the same.
  test::ProcessResult j = compare(dir.file("a"), dir.file("b"), {"--format", "json", "--figures", "indeterminate"});
  EXPECT_EQ(j.exit_code, 3) << j.out;
  json out = json::parse(j.out);
  EXPECT_TRUE(out["cannot_tell"].get<bool>());
  EXPECT_EQ(out["testable"], 0);
  EXPECT_EQ(out["not_testable"]["had 3 vs 3 trials (p >= 0.1)"], 60);
  EXPECT_EQ(out["asked"], json::array({"indeterminate"}));
  test::ProcessResult bad = compare(dir.file("a"), dir.file("b"), {"--figures", "silence"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

// Enough trials (5 a side, the fewest whose smallest p is below 0.01)
// with a planted difference in one cell: exit 1, the row shown; the same
// runs without it: exit 0, every asked figure tested.
TEST(Compare, EnoughTrialsTellAPlantedDifferenceExitOne) {
  EXPECT_EQ(trials_to_test(0.01), 5u);
  EXPECT_EQ(trials_to_test(0.1), 4u) << "3 vs 3 gives exactly 0.1, not below it";
  TempDir dir;
  write_run(dir.file("a"), quick_like(5, 99, 0));
  write_run(dir.file("b"), quick_like(5, 4, 40));
  write_run(dir.file("c"), quick_like(5, 99, 0));
  test::ProcessResult r = compare(dir.file("a"), dir.file("b"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "a long quick label 4\n  silent: A 0.0", r.out);
  EXPECT_EQ(last_line(r.out), "silent differs at alpha 0.01 (exit 1) in 1 cell: 60 of 60 figures testable");
  test::ProcessResult same = compare(dir.file("a"), dir.file("c"));
  EXPECT_EQ(same.exit_code, 0) << same.out;
  // A cell that failed in one run hides its figures: cannot tell.
  std::vector<json> failed = quick_like(5, 99, 0);
  failed[2]["status"] = "failed";
  write_run(dir.file("f"), failed);
  test::ProcessResult f = compare(dir.file("a"), dir.file("f"));
  EXPECT_EQ(f.exit_code, 3) << f.out;
  EXPECT_EQ(last_line(f.out), "cannot tell cells not run (exit 3): 56 of 57 figures testable; 1 in cells not run in "
                              "one run");
}

// Silent errors alike, duplicate calls apart (a run that answers repeats
// from a cache, told success, against one that executes them, told
// failure): the duplicate calls are what differs, with their change.
TEST(Compare, DuplicateCallsAreComparedBesideSilentErrors) {
  std::vector<json> a = two_cells(0), b = two_cells(0);
  b[0]["classes"]["duplicate_calls"] = 400;
  b[0]["classes"]["correct"] = 20000 - 400;
  a[0]["classes"]["duplicate_calls"] = 200;
  RunComparison c = compare_records(a, b, 0.01);
  EXPECT_FALSE(figure_of(c, 0).differs);
  const CellComparison& dup = figure_of(c, 0, "duplicate calls per 1M calls");
  EXPECT_TRUE(dup.differs) << dup.p;
  EXPECT_NEAR(*dup.change_pct(), 100, 1e-9);
  EXPECT_TRUE(c.any_differs());
  // A gate about the silent rate alone: the duplicate calls are shown and
  // counted, and decide nothing.
  TempDir dir;
  write_run(dir.file("a"), a);
  write_run(dir.file("b"), b);
  test::ProcessResult gate = compare(dir.file("a"), dir.file("b"), {"--figures", "silent"});
  EXPECT_EQ(gate.exit_code, 0) << gate.out;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\n  duplicate: A 10000.0 (200 of 20,000), B 20000.0", gate.out);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "; 1 not asked about differ\n", gate.out);
  EXPECT_EQ(compare(dir.file("a"), dir.file("b")).exit_code, 1) << "asked about by default";
}

TEST(Compare, CellsOnlyOneRunHasAreListed) {
  std::vector<json> a = two_cells(0), b = two_cells(0);
  a.push_back(dependability_record("raw-tcp", 0, 20000, 0));
  b.push_back(dependability_record("grpc", 5, 20000, 0));
  RunComparison c = compare_records(a, b, 0.01);
  EXPECT_EQ(c.cells, 2u);
  EXPECT_EQ(c.only_a, std::vector<std::string>{a[2].value("label", "")});
  EXPECT_EQ(c.only_b, std::vector<std::string>{b[2].value("label", "")});
  EXPECT_FALSE(c.any_differs()) << "a cell only one run has is listed, not a difference";
  TempDir dir;
  write_run(dir.file("a"), a);
  write_run(dir.file("b"), b);
  test::ProcessResult r = compare(dir.file("a"), dir.file("b"), {"--all"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "only in A: " + a[2].value("label", ""), r.out);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "only in B: " + b[2].value("label", ""), r.out);
}

TEST(Compare, HowMuchACellMeasuresDoesNotStopTheMatch) {
  std::vector<json> a = two_cells(0), b = two_cells(0);
  b[0]["cell"]["calls_per_client"] = 5;
  b[0]["cell"]["trials"] = 7;
  b[1]["cell"]["hogs"] = 3;  // a setting: no longer the same cell
  RunComparison c = compare_records(a, b, 0.01);
  EXPECT_EQ(c.cells, 1u);
  EXPECT_EQ(c.only_a.size(), 1u);
}

TEST(Compare, TrialsAreComparedAsTrials) {
  json base = dependability_record("sunrpc-udp", 0, 5000, 0);
  json quiet = with_trials(base, {0, 0, 0, 0, 0}), loud = with_trials(base, {9, 11, 10, 12, 8});
  RunComparison c = compare_records({quiet}, {loud}, 0.01);
  ASSERT_EQ(c.cells, 1u);
  EXPECT_EQ(figure_of(c, 0).test, "permutation over trials (5 vs 5)");
  EXPECT_NEAR(figure_of(c, 0).p, 2.0 / 252, 1e-12) << "the two extreme splits of 252";
  EXPECT_TRUE(figure_of(c, 0).differs);
  // Three trials a side can never reach 0.01 (the smallest p is 2/20): said, not flagged.
  c = compare_records({with_trials(base, {0, 0, 0})}, {with_trials(base, {9, 9, 9})}, 0.01);
  EXPECT_NEAR(figure_of(c, 0).p, 0.1, 1e-12);
  EXPECT_FALSE(figure_of(c, 0).differs);
}

// Whether a cascade starts is decided per trial: two runs are compared on
// how many of their trials had an onset, each side with its exact
// interval, by Fisher's exact test over trials (issue 26: two runs of the
// surface agree when these do).
json with_onsets(json r, const std::vector<size_t>& onsets) {
  CellEpisodes e;
  e.onsets_per_trial = onsets;
  e.first_onset_s_per_trial.assign(onsets.size(), std::nullopt);
  r["episodes"] = e;
  return r;
}

TEST(Compare, OnsetTrialsAreComparedAsAProportionOfTrials) {
  json base = dependability_record("sunrpc-udp", 0, 5000, 0);
  std::vector<size_t> half(10, 0), none(10, 0), all(10, 3);
  for (size_t i = 0; i < 5; ++i) half[i] = 2;
  RunComparison c = compare_records({with_onsets(base, half)}, {with_onsets(base, none)}, 0.01);
  const CellComparison& f = figure_of(c, 0, "trials with an onset");
  EXPECT_EQ(f.test, "Fisher exact over trials (10 vs 10)");
  EXPECT_EQ(f.a, "5 of 10 trials (0.19-0.81)");
  EXPECT_EQ(f.b, "0 of 10 trials (0.00-0.31)");
  EXPECT_NEAR(f.p, fisher_exact_two_sided(5, 10, 0, 10), 1e-12);
  EXPECT_FALSE(f.differs) << "p = " << f.p << ": 5 of 10 against 0 of 10 is not below 0.01";
  EXPECT_TRUE(f.testable(0.01)) << "10 against 0 of 10 would be";
  c = compare_records({with_onsets(base, all)}, {with_onsets(base, none)}, 0.01);
  EXPECT_TRUE(figure_of(c, 0, "trials with an onset").differs);
  // Three trials a side: even 3 of 3 against 0 of 3 gives p = 0.1, said untestable.
  c = compare_records({with_onsets(base, {1, 1, 1})}, {with_onsets(base, {0, 0, 0})}, 0.01);
  EXPECT_FALSE(figure_of(c, 0, "trials with an onset").testable(0.01));
  // A cell without episodes (no datagram transport) has no such figure.
  c = compare_records({base}, {base}, 0.01);
  EXPECT_THROW(figure_of(c, 0, "trials with an onset"), std::runtime_error);
}

TEST(Compare, SpeedCellsByWelchOverTrialMeans) {
  json a = speed_record("raw-tcp", 1, 12, {40, 41, 39}), same = speed_record("raw-tcp", 1, 12, {40.5, 40, 39.5});
  json slow = speed_record("raw-tcp", 1, 12, {80, 81, 79});
  EXPECT_FALSE(compare_records({a}, {same}, 0.01).any_differs());
  RunComparison c = compare_records({a}, {slow}, 0.01);
  EXPECT_TRUE(c.any_differs());
  const CellComparison& mean = figure_of(c, 0, "mean latency us (trial means)");
  EXPECT_EQ(mean.test, "Welch over trials (3 vs 3)");
  EXPECT_NEAR(*mean.change_pct(), 100, 1e-9) << "80 against 40: +100%";
  RunComparison one = compare_records({speed_record("raw-tcp", 1, 12, {40})}, {slow}, 0.01);
  EXPECT_FALSE(figure_of(one, 0, "mean latency us (trial means)").tested) << "one trial: no Welch test";
}

// A figure the speed tables mark as noise (a p50 below its floor's, the
// mean with it) is marked the same way by compare, from the experiment's
// own rule (Experiment::noise), with the rule's note under what it shows.
TEST(Compare, NoisyFiguresCarryTheTablesMark) {
  TempDir dir;
  json a = speed_record("sunrpc-tcp", 1, 12, {40, 41, 39}), b = speed_record("sunrpc-tcp", 1, 12, {80, 81, 79});
  a["ratio_to_floor"] = 0.8;  // below the raw floor of its run: noise
  b["ratio_to_floor"] = 1.6;
  write_run(dir.file("a"), {a});
  write_run(dir.file("b"), {b});
  test::ProcessResult brief = compare(dir.file("a"), dir.file("b"));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "mean-latency: A 40.0~, B 80.0 ", brief.out);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "~ = noise, not a finding", brief.out);
  test::ProcessResult json_out = compare(dir.file("a"), dir.file("b"), {"--format", "json"});
  json out = json::parse(json_out.out);
  ASSERT_FALSE(out["matched"].empty()) << json_out.out;
  const json& mean = out["matched"][0];
  EXPECT_EQ(mean["key"], "mean-latency");
  EXPECT_TRUE(mean["a_noisy"].get<bool>());
  EXPECT_FALSE(mean["b_noisy"].get<bool>());
  EXPECT_EQ(mean["a_text"], "40.0~");
  RunComparison quiet = compare_records({a}, {b}, 0.01);  // no rule given: nothing is marked
  EXPECT_EQ(figure_of(quiet, 0, "mean latency us (trial means)").a, "40.0");
  EXPECT_TRUE(quiet.noise_note.empty());
}

TEST(Compare, BadInputExitsTwoWithAClearMessage) {
  TempDir dir;
  write_run(dir.file("a"), two_cells(0));
  std::filesystem::create_directories(dir.file("empty"));
  test::ProcessResult missing = compare(dir.file("a"), dir.file("nowhere"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "nowhere does not exist", missing.err);
  test::ProcessResult empty = compare(dir.file("empty"), dir.file("a"));
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "is not a run folder", empty.err);
  write_run(dir.file("s"), {speed_record("raw-tcp", 1, 12, {40, 41})});
  test::ProcessResult mixed = compare(dir.file("a"), dir.file("s"));
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "compare runs of one experiment", mixed.err);
}

const std::string kViews = RPCLAB_SOURCE_DIR "/tests/harness/fixtures/views/";

// A copy of the fixture run `name` as run "fixture-b": every speed latency
// (cell and trial) times `scale`, and its last cell left out.
std::string changed_copy(const std::string& name, const std::string& dir, double scale) {
  std::filesystem::create_directories(dir);
  std::ifstream in(kViews + name + "/results.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    json r = json::parse(line);
    auto scaled = [scale](json& o) {
      for (const char* f : {"p50_us", "p90_us", "p99_us", "mean_us"})
        if (o.contains(f) && o[f].is_number()) o[f] = o[f].get<double>() * scale;
    };
    scaled(r);
    if (r.contains("trial_means_us"))
      for (json& v : r["trial_means_us"]) v = v.get<double>() * scale;
    if (r.contains("per_trial"))
      for (json& t : r["per_trial"]) scaled(t);
    lines.push_back(r.dump());
  }
  std::string left_out = json::parse(lines.back()).value("label", "");
  lines.pop_back();
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  write_file_atomically(dir + "/results.jsonl", text);
  json meta = json::parse(read_whole_file(kViews + name + "/metadata.json"));
  meta["run_id"] = "fixture-b";
  write_file_atomically(dir + "/metadata.json", meta.dump(2));
  return left_out;
}

double attr(const std::string& element, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(element, m, std::regex(" " + name + "=\"([-0-9.]+)\"")))
    throw std::runtime_error("no " + name + " in " + element);
  return std::stod(m[1]);
}

// Every <svg> of `page` whose class is `cls`, whole.
std::vector<std::string> svgs(const std::string& page, const std::string& cls) {
  std::vector<std::string> out;
  std::string open = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"" + cls + "\"";
  for (size_t at = page.find(open); at != std::string::npos; at = page.find(open, at + 1))
    out.push_back(page.substr(at, page.find("</svg>", at) - at));
  return out;
}

// Every point of the plot (dots, bars, curve vertices) inside its frame.
void expect_points_inside(const std::string& svg) {
  double x0 = attr(svg, "data-x0"), x1 = attr(svg, "data-x1"), y0 = attr(svg, "data-y0"), y1 = attr(svg, "data-y1");
  size_t points = 0;
  std::regex point(R"(<(circle|line) class="point [ab]"[^>]*>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), point); it != std::sregex_iterator(); ++it, ++points) {
    std::string e = it->str();
    double x = e.rfind("<circle", 0) == 0 ? attr(e, "cx") : attr(e, "x1");
    double y = e.rfind("<circle", 0) == 0 ? attr(e, "cy") : attr(e, "y1");
    EXPECT_TRUE(x >= x0 && x <= x1 && y >= y0 && y <= y1) << e << " outside " << x0 << ".." << x1;
  }
  std::regex curve(R"re(<polyline class="curve [ab]" points="([^"]*)")re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), curve); it != std::sregex_iterator(); ++it) {
    std::istringstream pts((*it)[1].str());
    for (std::string p; pts >> p; ++points) {
      double x = std::stod(p.substr(0, p.find(','))), y = std::stod(p.substr(p.find(',') + 1));
      EXPECT_TRUE(x >= x0 - 0.05 && x <= x1 + 0.05 && y >= y0 - 0.05 && y <= y1 + 0.05) << p << " in " << svg.substr(0, 300);
    }
  }
  EXPECT_GT(points, 0u) << svg;
}

// compare.html of the speed fixture run against a copy of it twice as
// slow: both runs' ids, every matched cell in the table and in each
// figure's plot (A and B on one axis, every point inside the frame), each
// latency CDF pair overlaid, the cell only A has listed.
TEST(ComparePage, SpeedFixtureAgainstASlowerCopyShowsBothRunsEveryCellAndThePlots) {
  TempDir dir;
  std::string a = kViews + "speed", b = dir.file("b");
  std::string only_a = changed_copy("speed", b, 2.0);
  test::ProcessResult r = compare(a, b, {"--html", dir.file("compare.html"), "--format", "json"});
  ASSERT_TRUE(r.exit_code == 1 || r.exit_code == 3) << r.out << r.err;
  json out = json::parse(r.out);
  std::string page = read_whole_file(dir.file("compare.html"));
  json meta_a = json::parse(read_whole_file(a + "/metadata.json"));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "A = run " + meta_a.value("run_id", "?") + " against B = run fixture-b", page);
  // Every matched cell in the table, and every figure with a number in a plot of its own, every cell in it.
  std::map<std::string, std::set<std::string>> cells_of_figure;
  std::set<std::string> labels;
  for (const json& m : out["matched"]) {
    labels.insert(m.value("label", ""));
    if (m["a"].is_number() || m["b"].is_number()) cells_of_figure[m.value("figure", "")].insert(m.value("label", ""));
  }
  ASSERT_GE(labels.size(), 20u) << "the fixture's 26 cells but the one left out of B";
  for (const std::string& l : labels) EXPECT_PRED_FORMAT2(testing::IsSubstring, "<td>" + html::escape(l) + "</td>", page);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "<td>" + html::escape(only_a) + "</td>", page) << "only in A, listed";
  std::vector<std::string> plots = svgs(page, "compare-plot");
  ASSERT_EQ(plots.size(), cells_of_figure.size());
  for (const std::string& svg : plots) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(svg, m, std::regex("data-figure=\"([^\"]*)\"")));
    std::string figure = m[1];
    ASSERT_TRUE(cells_of_figure.count(figure)) << figure;
    for (const std::string& l : cells_of_figure[figure])
      EXPECT_PRED_FORMAT2(testing::IsSubstring, "data-label=\"" + html::escape(l) + "\"", svg) << figure;
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "class=\"point a\"", svg);
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "class=\"point b\"", svg);
    expect_points_inside(svg);
  }
  // p50 is twice as high in B: the plot's B bars lie right of A's, and the change says +100%.
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "+100.0%", page);
  std::vector<std::string> cdfs = svgs(page, "compare-cdf");
  EXPECT_FALSE(cdfs.empty()) << "the fixture's speed cells keep latency histograms";
  for (const std::string& svg : cdfs) {
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "class=\"curve a\"", svg);
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "class=\"curve b\"", svg);
    expect_points_inside(svg);
  }
}

// --html never overwrites a file compare did not write; it does replace
// its own page; `-` writes the page to standard output.
TEST(ComparePage, LeavesAFileItDidNotWriteAloneAndWritesToStdoutOnDash) {
  TempDir dir;
  write_run(dir.file("a"), two_cells(0));
  write_run(dir.file("b"), two_cells(300));
  write_file_atomically(dir.file("notes.html"), "my notes\n");
  test::ProcessResult refused = compare(dir.file("a"), dir.file("b"), {"--html", dir.file("notes.html")});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "is not a page rpclab compare wrote", refused.err);
  EXPECT_EQ(read_whole_file(dir.file("notes.html")), "my notes\n");
  for (int i = 0; i < 2; ++i) {
    test::ProcessResult r = compare(dir.file("a"), dir.file("b"), {"--html", dir.file("compare.html")});
    EXPECT_EQ(r.exit_code, 1) << "run " << i << ": " << r.err;
  }
  test::ProcessResult out = compare(dir.file("a"), dir.file("b"), {"--html", "-"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_EQ(out.out.rfind("<!DOCTYPE html>", 0), 0u) << out.out.substr(0, 200);
  EXPECT_EQ(out.out, read_whole_file(dir.file("compare.html")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "at alpha 0.01 (exit 1) in 1 cell", out.err) << "the summary on stderr";
  EXPECT_EQ(svgs(out.out, "compare-plot").size(), 4u) << "the four proportions, one plot each";
}

}  // namespace
}  // namespace rpclab::harness
