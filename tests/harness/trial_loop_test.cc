// The trial loop without processes: the trial order (shuffled and seeded,
// or in rounds), what a run folder says is done, and run_cells itself with
// an experiment whose trials are hand-made, interrupted and resumed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <set>

#include "harness/run/experiment.h"
#include "harness/record/records_file.h"
#include "harness/run/result_record.h"
#include "harness/run/run_cells.h"
#include "harness/run/trial_book.h"
#include "harness/run/trial_run.h"
#include "harness/run/trial_schedule.h"
#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

std::vector<CellConfig> cells_of(size_t n, int trials) {
  std::vector<CellConfig> cells;
  for (size_t i = 0; i < n; ++i) {
    CellConfig c;
    c.experiment = "dependability";
    c.transport = "sunrpc-tcp";
    c.hogs = static_cast<int>(i);
    c.trials = trials;
    cells.push_back(c);
  }
  return cells;
}

TEST(TrialSchedule, ShuffledOrderHoldsEveryTrialOnceNumberedInTheOrderTheyRun) {
  auto cells = cells_of(10, 5);
  auto order = shuffled_trials(cells, 42);
  ASSERT_EQ(order.size(), 50u);
  std::map<size_t, uint32_t> seen;
  for (const TrialSlot& s : order) EXPECT_EQ(s.trial, ++seen[s.cell]) << "cell " << s.cell;
  for (const auto& [cell, n] : seen) EXPECT_EQ(n, 5u);
  EXPECT_EQ(seen.size(), 10u);
}

TEST(TrialSchedule, TheSeedGivesTheOrderAndTheCellsAreInterleaved) {
  auto cells = cells_of(10, 5);
  EXPECT_EQ(shuffled_trials(cells, 42), shuffled_trials(cells, 42)) << "the recorded seed gives the order again";
  EXPECT_NE(shuffled_trials(cells, 42), shuffled_trials(cells, 43));
  // Not cell after cell: the first ten trials come from several cells, and
  // no cell has all its trials in a row.
  auto order = shuffled_trials(cells, 42);
  std::set<size_t> first_ten;
  for (size_t i = 0; i < 10; ++i) first_ten.insert(order[i].cell);
  EXPECT_GE(first_ten.size(), 4u);
  size_t longest = 1, run = 1;
  for (size_t i = 1; i < order.size(); ++i) longest = std::max(longest, run = order[i].cell == order[i - 1].cell ? run + 1 : 1);
  EXPECT_LT(longest, 5u);
  // Pinned, so the same seed gives the same order on every machine and build.
  std::vector<size_t> pinned;
  for (const TrialSlot& s : shuffled_trials(cells_of(3, 2), 7)) pinned.push_back(s.cell);
  EXPECT_EQ(pinned, (std::vector<size_t>{2, 0, 2, 1, 0, 1})) << "mt19937_64 with random_index must not change";
}

TEST(TrialSchedule, RoundsTakeTurnsWithinAGroup) {
  auto cells = cells_of(4, 3);
  cells[3].trials = 1;
  auto group = [](const CellConfig& c) { return c.hogs < 3 ? std::string("a") : std::string("b"); };
  std::vector<std::pair<size_t, uint32_t>> got;
  for (const TrialSlot& s : trial_rounds(cells, group)) got.emplace_back(s.cell, s.trial);
  std::vector<std::pair<size_t, uint32_t>> want = {{0, 1}, {1, 1}, {2, 1}, {0, 2}, {1, 2},
                                                   {2, 2}, {0, 3}, {1, 3}, {2, 3}, {3, 1}};
  EXPECT_EQ(got, want);
}

json trial_rec(const CellConfig& cell, uint32_t trial, const std::string& status) {
  TrialPlace place{1, trial, static_cast<uint32_t>(cell.trials), "/x"};
  json t = trial_record(cell, place, "run");
  t["status"] = status;
  return t;
}

TEST(TrialBook, FinishedTrialsAreDoneAndFailedOnesRunAgain) {
  auto cells = cells_of(2, 3);
  TrialBook book;
  book.add_cell(json{{"cell", cells[1].to_json()}, {"status", "ok"}, {"trials_failed", json::array()}}.get<CellRecord>());
  EXPECT_TRUE(book.cell_done(cells[1].id()));
  EXPECT_FALSE(book.cell_done(cells[0].id()));
  // Read back from disk: an ok trial is done, a failed one from an earlier
  // session is not (a resume runs it again), and the cell is not complete.
  test::TempDir dir;
  RunFolder folder(dir.file("results"), dir.file("run"), FolderUse::kNew);
  folder.append_trial(trial_rec(cells[0], 1, "ok"));
  folder.append_trial(trial_rec(cells[0], 2, "failed"));
  folder.append_trial(trial_rec(cells[0], 3, "ok"));
  TrialBook read(folder.trials_path(), folder.results_path(), nullptr);
  EXPECT_TRUE(read.trial_done(cells[0].id(), 1));
  EXPECT_FALSE(read.trial_done(cells[0].id(), 2));
  EXPECT_FALSE(read.cell_complete(cells[0].id(), 3));
  // Failed again in this session: it has ended, the cell's record can be made.
  read.add_trial(trial_rec(cells[0], 2, "failed").get<TrialRecord>());
  EXPECT_TRUE(read.cell_complete(cells[0].id(), 3));
  EXPECT_EQ(read.trials_of(cells[0].id()).size(), 3u);
  // A cell whose record still names failed trials is not done.
  read.add_cell(json{{"cell", cells[0].to_json()}, {"status", "ok"}, {"trials_failed", {{{"trial", 2}}}}}.get<CellRecord>());
  EXPECT_FALSE(read.cell_done(cells[0].id()));
}

// An experiment whose trials are made by hand: it notes every trial it is
// asked to run, fails trial 2 of cell 0, and asks to stop after `stop_after`.
struct FakeExperiment {
  std::vector<std::pair<size_t, uint32_t>> ran;
  size_t stop_after = SIZE_MAX;
  std::atomic<bool> stop{false};
  Experiment row() {
    Experiment e;
    e.name = "dependability";
    e.schedule = shuffled_trials;
    e.trial_runner = [this](const std::string&, CellEnvironment&) -> TrialRunner {
      return [this](const CellConfig& cell, const TrialPlace& place, CellEnvironment&, process::CommandLog&,
                    TrialRecord& t) {
        ran.emplace_back(place.cell_index, place.trial);
        if (ran.size() >= stop_after) stop = true;
        if (place.cell_index == 1 && place.trial == 2) throw std::runtime_error("server died mid-run");
        t.dependability.classes = ClassCounts{};
        t.dependability.classes->calls = static_cast<uint64_t>(cell.hogs);
      };
    };
    e.summarize = [](const CellConfig&, const std::vector<TrialRecord>& trials, const std::vector<CellRecord>&,
                     CellRecord& r) {
      r.dependability.classes = ClassCounts{};
      r.dependability.classes->calls = ok_trials(trials).size();
    };
    e.trial_words = [](const TrialRecord& t) { return t.status; };
    e.cell_words = [](const CellRecord& r) { return r.status; };
    return e;
  }
};

TEST(RunCells, KilledRunResumesWithoutRerunningFinishedTrials) {
  test::TempDir dir;
  auto cells = cells_of(3, 4);
  RunOptions options;
  options.shuffle_seed = 5;
  CellEnvironment env;
  env.caps.root = false;  // no namespace clean-up from a unit test
  FakeExperiment fake;
  fake.stop_after = 5;
  {
    RunFolder folder(dir.file("results"), dir.file("run"), FolderUse::kNew);
    RunSummary first = run_cells(fake.row(), cells, options, folder, fake.stop, env);
    EXPECT_TRUE(first.interrupted);
    EXPECT_EQ(first.trials_run, 5u);
    EXPECT_EQ(first.exit_code(), 130);
  }
  auto first_five = fake.ran;
  EXPECT_EQ(read_trial_records(dir.file("run/trials.jsonl"), nullptr).size(), 5u) << "each trial on disk as it ended";
  fake.stop = false;
  fake.stop_after = SIZE_MAX;
  RunFolder again(dir.file("results"), dir.file("run"), FolderUse::kResume);
  RunSummary second = run_cells(fake.row(), cells, options, again, fake.stop, env);
  EXPECT_FALSE(second.interrupted);
  EXPECT_EQ(second.trials_resumed, 5u - (std::count(first_five.begin(), first_five.end(), std::pair<size_t, uint32_t>{1, 2})));
  std::set<std::pair<size_t, uint32_t>> all(fake.ran.begin(), fake.ran.end());
  EXPECT_EQ(all.size(), 12u) << "every trial ran";
  for (size_t i = 5; i < fake.ran.size(); ++i) {
    if (fake.ran[i] != std::pair<size_t, uint32_t>{1, 2}) {  // the failed trial, and only it, may run twice
      EXPECT_EQ(std::count(first_five.begin(), first_five.end(), fake.ran[i]), 0) << "trial ran again";
    }
  }
  std::vector<json> records;  // as results.jsonl holds them
  for (const CellRecord& r : read_cell_records(dir.file("run/results.jsonl"), nullptr)) records.push_back(r);
  ASSERT_EQ(records.size(), 3u);
  for (const json& r : records) {
    EXPECT_EQ(r["trials"], 4);
    if (r["cell_index"] == 1) {
      EXPECT_EQ(r["status"], "ok");
      EXPECT_EQ(r["trials_ok"], 3);
      ASSERT_EQ(r["trials_failed"].size(), 1u);
      EXPECT_EQ(r["trials_failed"][0]["trial"], 2);
      EXPECT_EQ(r["trials_failed"][0]["reason"], "server died mid-run");
      EXPECT_NE(r["reason"].get<std::string>().find("1 of 4 trials failed, the figures are over the other 3"),
                std::string::npos) << r["reason"];
      EXPECT_EQ(r["calls"], 3) << "the summary saw the three ok trials";
    } else {
      EXPECT_EQ(r["trials_ok"], 4);
    }
    EXPECT_EQ(r["per_trial"].size(), 4u);
  }
  EXPECT_EQ(second.exit_code(), 1) << "a failed trial makes the run's exit code 1";
}

// Speed's folder syncs in batches (Experiment::sync_batch): a line is
// still on disk, whole, as its trial ends (a crash of rpclab loses none),
// and a resume of an interrupted batched run reruns nothing that finished.
TEST(RunCells, ABatchedFolderKeepsEachTrialAsItEndsAndResumes) {
  test::TempDir dir;
  auto cells = cells_of(2, 3);
  RunOptions options;
  CellEnvironment env;
  env.caps.root = false;
  FakeExperiment fake;
  fake.stop_after = 4;
  {
    RunFolder folder(dir.file("results"), dir.file("run"), FolderUse::kNew);
    folder.sync_in_batches(std::chrono::hours(1));  // no sync while the run lasts
    run_cells(fake.row(), cells, options, folder, fake.stop, env);
    EXPECT_EQ(read_trial_records(dir.file("run/trials.jsonl"), nullptr).size(), 4u)
        << "each trial readable as it ended, before any sync";
  }
  size_t first = fake.ran.size();
  fake.stop = false;
  fake.stop_after = SIZE_MAX;
  RunFolder again(dir.file("results"), dir.file("run"), FolderUse::kResume);
  again.sync_in_batches(std::chrono::milliseconds(1));
  RunSummary second = run_cells(fake.row(), cells, options, again, fake.stop, env);
  EXPECT_EQ(first + 6 - second.trials_resumed, fake.ran.size()) << "only the unfinished trials ran again";
  EXPECT_EQ(read_cell_records(dir.file("run/results.jsonl"), nullptr).size(), 2u);
}

// A trial marked skipped skips its cell. A cell the experiment's own rule
// says cannot run here (Experiment::cannot_run, the rule its runner skips
// by) takes no time in the plan's estimate: the run's estimate is that of
// the other cells alone.
TEST(RunCells, ASkippedTrialSkipsItsCellAndTheEstimateLeavesItOut) {
  test::TempDir dir;
  auto cells = cells_of(2, 3);
  CellEnvironment env;
  env.caps.root = false;
  std::atomic<bool> stop{false};
  Experiment e = FakeExperiment().row();
  auto cannot_run = [](const CellConfig& cell, const CellEnvironment&) {
    return cell.hogs == 1 ? std::string("needs root") : std::string();
  };
  e.cannot_run = cannot_run;
  size_t asked = 0;
  e.trial_runner = [&asked, cannot_run](const std::string&, CellEnvironment&) -> TrialRunner {
    return [&asked, cannot_run](const CellConfig& cell, const TrialPlace&, CellEnvironment& env, process::CommandLog&,
                                TrialRecord& t) {
      ++asked;
      if (std::string why = cannot_run(cell, env); !why.empty()) mark(t, "skipped", why);
    };
  };
  TimeConstants constants = read_time_constants(time_constants_path());
  std::optional<double> runs = cells_estimate_s(constants, {cells[0]});
  std::optional<double> both = cells_estimate_s(constants, cells);
  ASSERT_TRUE(runs && both) << "the dependability rows of " << time_constants_path();
  ASSERT_GT(*both, *runs) << "the skipped cell would have added to the estimate";
  RunFolder folder(dir.file("results"), dir.file("run"), FolderUse::kNew);
  RunSummary s = run_cells(e, cells, RunOptions{}, folder, stop, env);
  EXPECT_EQ(asked, 4u) << "cell 0's three trials and one of cell 1's";
  EXPECT_EQ(s.skipped, 1u);
  EXPECT_EQ(s.ok, 1u);
  auto records = latest_per_cell(read_cell_records(folder.results_path(), nullptr));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].status, "skipped");
  EXPECT_EQ(records[1].reason, "needs root");
  ASSERT_TRUE(s.wall_time.estimated_s);
  EXPECT_DOUBLE_EQ(*s.wall_time.estimated_s, *runs);
  EXPECT_EQ(cells_that_run(e, cells, env), (std::vector<bool>{true, false}));
  EXPECT_EQ(cells_that_run(FakeExperiment().row(), cells, env), (std::vector<bool>{true, true}))
      << "an experiment without the rule runs every cell";
}

}  // namespace
}  // namespace rpclab::harness
