// The plan's estimate of its time (harness/run/time_estimate.h): the most
// specific measured row for each cell, constants fitted back from planted
// trials, and the progress line's time left at the pace kept so far.
#include "harness/run/time_estimate.h"

#include <gtest/gtest.h>

#include <fstream>
#include <tuple>

#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

CellConfig cell(const std::string& transport, netem::TopologyKind topology, uint64_t calls,
                const std::string& block = "clean") {
  CellConfig c;
  c.experiment = "dependability";
  c.block = block;
  c.transport = transport;
  c.topology = topology;
  c.calls_per_client = calls;
  return c;
}

TimeConstant row(const std::string& block, const std::string& transport, const std::string& topology,
                 const std::string& connect, double call_s, double overhead_s) {
  TimeConstant r;
  r.experiment = "dependability";
  r.block = block;
  r.transport = transport;
  r.topology = topology;
  r.connect = connect;
  r.call_s = call_s;
  r.overhead_s = overhead_s;
  return r;
}

using netem::TopologyKind;

TEST(TimeEstimate, EachCellTakesTheMostSpecificRowThatMatchesIt) {
  TimeConstants table;
  table.rows = {row("*", "*", "*", "*", 0.010, 5.0), row("*", "*", "two-host", "persistent", 0.002, 2.0),
                row("clean", "grpc", "two-host", "persistent", 0.001, 1.0)};
  // grpc two-host clean: its own row, 1,000 calls at 1 ms and 1 s.
  EXPECT_DOUBLE_EQ(*trial_estimate_s(table, cell("grpc", TopologyKind::kTwoHost, 1000)), 2.0);
  // jsonrpc two-host: no row of its own, the topology's.
  EXPECT_DOUBLE_EQ(*trial_estimate_s(table, cell("jsonrpc", TopologyKind::kTwoHost, 1000)), 4.0);
  // grpc two-host in another block: the row without the block is absent, so the topology's.
  EXPECT_DOUBLE_EQ(*trial_estimate_s(table, cell("grpc", TopologyKind::kTwoHost, 1000, "load")), 4.0);
  // loopback: only the experiment's own.
  EXPECT_DOUBLE_EQ(*trial_estimate_s(table, cell("grpc", TopologyKind::kLoopback, 100)), 6.0);
  // A trial with timed events lasts its duration, whatever its call cap.
  CellConfig timed = cell("grpc", TopologyKind::kTwoHost, 1000000);
  timed.duration_ms = 5000;
  EXPECT_DOUBLE_EQ(*trial_estimate_s(table, timed), 6.0);
  CellConfig speed = cell("grpc", TopologyKind::kTwoHost, 1000);
  speed.experiment = "speed";
  EXPECT_FALSE(trial_estimate_s(table, speed)) << "no row of the speed experiment: no estimate, not a guess";
}

// A kind of cell no run has measured borrows the nearest kind's figures,
// and the estimate says how many trials do: a full preset estimated from
// the quick preset's clean cells alone said 4 min for a 30 min run.
TEST(TimeEstimate, TrialsOfAKindNoRunMeasuredAreCountedAsBorrowing) {
  TimeConstants table;
  table.rows = {row("*", "*", "*", "*", 0.010, 5.0), row("clean", "grpc", "two-host", "persistent", 0.001, 1.0)};
  CellConfig own = cell("grpc", TopologyKind::kTwoHost, 1000);
  own.trials = 3;
  CellConfig load = cell("grpc", TopologyKind::kTwoHost, 1000, "load");
  load.trials = 5;
  EXPECT_EQ(trials_borrowing(table, {own}), 0u);
  EXPECT_EQ(borrowing_note(table, {own}), "");
  EXPECT_EQ(trials_borrowing(table, {own, load}), 5u);
  EXPECT_NE(borrowing_note(table, {own, load}).find("5 of its 8 trials are of kinds of cell no run has measured"),
            std::string::npos)
      << borrowing_note(table, {own, load});
}

// A transport no run has measured in a block takes that block's figures
// before its own from another block: the quick preset's tonic clean cells
// took the load block's 8 ms a call (rpclab's other clean rows: 0.1-0.7
// ms) and its estimate was 92 s for a run of 37 s, past the 2x its test
// allows (CI, 2026-12-07).
TEST(TimeEstimate, ATransportNewToABlockTakesTheBlocksFiguresNotItsOwnFromAnotherBlock) {
  TimeConstants table;
  table.rows = {row("load", "tonic", "loopback", "persistent", 0.008, 0.3),
                row("*", "tonic", "loopback", "persistent", 0.008, 0.3),
                row("clean", "*", "loopback", "persistent", 0.0003, 0.2),
                row("*", "*", "loopback", "persistent", 0.004, 0.3)};
  EXPECT_DOUBLE_EQ(*trial_estimate_s(table, cell("tonic", TopologyKind::kLoopback, 1000)), 0.5);
  EXPECT_EQ(trials_borrowing(table, {cell("tonic", TopologyKind::kLoopback, 1000)}), 0u)
      << "its kind of cell was measured, by other transports";
  // A block no run has measured still takes the transport's own figures.
  EXPECT_DOUBLE_EQ(*trial_estimate_s(table, cell("tonic", TopologyKind::kLoopback, 1000, "faults")), 8.3);
  EXPECT_EQ(trials_borrowing(table, {cell("tonic", TopologyKind::kLoopback, 1000, "faults")}), 1u);
}

TEST(TimeEstimate, ConstantsFittedFromAPlantedRunEstimateItsTrialsAgain) {
  // A planted plan: each trial took calls x its transport's call time plus
  // its topology's overhead; the fit finds the constants, and the estimate
  // of the same plan adds up to the time the trials took.
  struct Kind {
    std::string transport;
    TopologyKind topology;
    double call_s, overhead_s;
  };
  std::vector<Kind> kinds = {{"sunrpc-tcp", TopologyKind::kLoopback, 0.0002, 0.4},
                             {"grpc", TopologyKind::kLoopback, 0.0005, 0.6},
                             {"grpc", TopologyKind::kTwoHost, 0.0008, 1.5}};
  std::vector<TrialTime> trials;
  std::vector<CellConfig> plan;
  double actual = 0;
  for (const Kind& k : kinds)
    for (uint64_t calls : {500u, 1000u, 2000u}) {
      CellConfig c = cell(k.transport, k.topology, calls);
      plan.push_back(c);
      double calls_s = static_cast<double>(calls) * k.call_s;
      trials.push_back({c, calls_s + k.overhead_s, calls_s, "run-a"});
      actual += calls_s + k.overhead_s;
    }
  TimeConstants table = fit_time_constants(trials);
  const TimeConstant* grpc_two_host = constant_for(table, cell("grpc", TopologyKind::kTwoHost, 1));
  ASSERT_TRUE(grpc_two_host);
  EXPECT_NEAR(grpc_two_host->call_s, 0.0008, 1e-12);
  EXPECT_NEAR(grpc_two_host->overhead_s, 1.5, 1e-12);
  EXPECT_EQ(grpc_two_host->trials, 3u);
  EXPECT_EQ(grpc_two_host->run, "run-a");
  double estimate = 0;
  for (const CellConfig& c : plan) estimate += *trial_estimate_s(table, c);
  EXPECT_NEAR(estimate, actual, 1e-9);
  EXPECT_NEAR(*cells_estimate_s(table, plan), actual, 1e-9) << "a dry run says the same";
  // A transport the run did not measure gets the experiment's mean figures.
  const TimeConstant* any = constant_for(table, cell("xmlrpc", TopologyKind::kLoopback, 1));
  ASSERT_TRUE(any);
  EXPECT_EQ(any->transport, "*");
  EXPECT_EQ(any->trials, 6u) << "the loopback trials of both transports";
}

// A speed row's calls range from 12 B to 1 MiB: its time a call is a line
// in the size, so a plan of small cells (the quick preset) is not given
// the mean of a run's 1 MiB calls, while the run the line was fitted from
// is still given the time it took, in all.
TEST(TimeEstimate, ACallsTimeGrowsWithItsSize) {
  auto sized = [](size_t size, uint64_t calls) {
    CellConfig c = cell("grpc", TopologyKind::kLoopback, calls);
    c.experiment = "speed";
    c.size = size;
    c.warmup = 10;
    return c;
  };
  std::vector<TrialTime> trials;
  double actual = 0;
  std::vector<CellConfig> plan;
  // 100 us a call and 4 ms more a MiB, with a little noise each way.
  for (auto [size, calls, noise] : std::vector<std::tuple<size_t, uint64_t, double>>{
           {12, 100, 1.02}, {512, 100, 0.98}, {8192, 100, 1.0}, {65536, 100, 1.01}, {1 << 20, 10, 0.99}}) {
    CellConfig c = sized(size, calls);
    double calls_s = static_cast<double>(calls + 10) * (1e-4 + 4e-3 * static_cast<double>(size) / (1 << 20)) * noise;
    trials.push_back({c, calls_s + 0.005, calls_s, "run-s"});
    plan.push_back(c);
    actual += calls_s + 0.005;
  }
  TimeConstants table = fit_time_constants(trials);
  const TimeConstant* grpc = constant_for(table, sized(12, 1));
  ASSERT_TRUE(grpc);
  EXPECT_NEAR(grpc->call_s, 1e-4, 5e-6);
  EXPECT_NEAR(grpc->call_s_per_byte * (1 << 20), 4e-3, 2e-4);
  EXPECT_NEAR(*cells_estimate_s(table, plan), actual, 1e-9) << "the run it was fitted from, in all";
  EXPECT_NEAR(*trial_estimate_s(table, sized(12, 100)), 110 * 1e-4 + 0.005, 0.03 * 110 * 1e-4)
      << "a 12 B trial is not given the 1 MiB calls' time";
  // Sizes that do not make calls slower give a flat row: their mean.
  std::vector<TrialTime> flat = {{sized(12, 100), 0.011 + 0.005, 0.011, "r"}, {sized(8192, 100), 0.0099 + 0.005, 0.0099, "r"}};
  TimeConstants flat_table = fit_time_constants(flat);
  const TimeConstant* level = constant_for(flat_table, sized(12, 1));
  ASSERT_TRUE(level);
  EXPECT_EQ(level->call_s_per_byte, 0.0);
  EXPECT_NEAR(level->call_s, (0.011 + 0.0099) / 220, 1e-12);
}

TEST(TimeEstimate, ARefreshReplacesItsOwnRowsAndKeepsTheOthers) {
  TimeConstants old;
  old.rows = {row("*", "*", "*", "*", 0.010, 5.0), row("clean", "grpc", "loopback", "persistent", 0.001, 1.0)};
  old.rows[1].experiment = "speed";
  TimeConstants fresh;
  fresh.rows = {row("*", "*", "*", "*", 0.020, 3.0)};
  TimeConstants merged = merge_time_constants(old, fresh);
  ASSERT_EQ(merged.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(constant_for(merged, cell("grpc", TopologyKind::kLoopback, 1))->overhead_s, 3.0);
  CellConfig speed = cell("grpc", TopologyKind::kLoopback, 1);
  speed.experiment = "speed";
  EXPECT_DOUBLE_EQ(constant_for(merged, speed)->overhead_s, 1.0);
}

// The rows for any block are what presets whose blocks no run measured
// use: refreshing the quick preset's clean cells must not put its 51
// trials in place of levy1989's 540 there, while its own blocks' rows are
// replaced whatever their size.
TEST(TimeEstimate, ASmallerRefreshKeepsTheAnyBlockRowsOfALargerRun) {
  TimeConstants old;
  old.rows = {row("*", "*", "loopback", "persistent", 0.006, 0.4), row("clean", "*", "loopback", "persistent", 0.001, 0.2)};
  old.rows[0].trials = 540, old.rows[1].trials = 200;
  TimeConstants fresh;
  fresh.rows = {row("*", "*", "loopback", "persistent", 0.0003, 0.15),
                row("clean", "*", "loopback", "persistent", 0.0003, 0.15)};
  fresh.rows[0].trials = fresh.rows[1].trials = 51;
  TimeConstants merged = merge_time_constants(old, fresh);
  EXPECT_DOUBLE_EQ(constant_for(merged, cell("grpc", TopologyKind::kLoopback, 1, "faults"))->call_s, 0.006);
  EXPECT_DOUBLE_EQ(constant_for(merged, cell("grpc", TopologyKind::kLoopback, 1, "clean"))->call_s, 0.0003);
  fresh.rows[0].trials = 600;
  EXPECT_DOUBLE_EQ(constant_for(merge_time_constants(old, fresh), cell("grpc", TopologyKind::kLoopback, 1, "faults"))
                       ->call_s,
                   0.0003)
      << "a refresh from as many trials or more replaces it";
  // Timed trials (the failures preset's 5 s) say nothing of a call's time:
  // however many, their row does not replace one that does.
  fresh.rows[0].call_s = 0;
  EXPECT_DOUBLE_EQ(constant_for(merge_time_constants(old, fresh), cell("grpc", TopologyKind::kLoopback, 1, "faults"))
                       ->call_s,
                   0.006);
}

TEST(TimeEstimate, ATrialsCallsAreItsClientsWallOrItsCallsAtTheirMeanLatency) {
  TrialRecord dep = TrialRecord::begin(cell("grpc", TopologyKind::kLoopback, 1000), 1, 1, 3, "/t", "run-d");
  dep.wall_s = 2.5;
  dep.dependability.client_wall_s = 0.8;
  std::optional<TrialTime> d = trial_time(dep);
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->calls_s, 0.8);
  EXPECT_EQ(d->run, "run-d");

  CellConfig speed_cell = cell("grpc", TopologyKind::kLoopback, 2000);
  speed_cell.experiment = "speed";
  TrialRecord speed = TrialRecord::begin(speed_cell, 1, 1, 5, "/t", "run-s");
  speed.wall_s = 0.3;
  speed.speed.latency.mean_us = 50;  // 2,000 calls x 50 us = 0.1 s
  EXPECT_NEAR(trial_time(speed)->calls_s, 0.1, 1e-12);
  speed.cell.config.warmup = 20;  // and its 20 warm-up calls, at the same mean: 1 ms more
  EXPECT_NEAR(trial_time(speed)->calls_s, 0.101, 1e-12);
  speed.cell.config.warmup = 0;
  speed.speed.calibration = true;  // sockperf's trial: no calls of ours
  EXPECT_DOUBLE_EQ(trial_time(speed)->calls_s, 0.0);

  speed.status = "failed";
  EXPECT_FALSE(trial_time(speed)) << "a failed trial's time says nothing of a cell's";
}

TEST(TimeEstimate, TheTableIsReadBackAndADamagedOneIsNamed) {
  test::TempDir dir;
  TimeConstants table;
  table.rows = {row("clean", "grpc", "loopback", "persistent", 0.001, 1.0)};
  table.rows[0].trials = 7;
  table.rows[0].run = "run-a";
  {
    std::ofstream(dir.file("t.json")) << nlohmann::json(table).dump();
    std::ofstream(dir.file("bad.json")) << "{\"rows\": 3}";
  }
  TimeConstants back = read_time_constants(dir.file("t.json"));
  ASSERT_EQ(back.rows.size(), 1u);
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(table));
  EXPECT_TRUE(read_time_constants(dir.file("none.json")).rows.empty());
  try {
    read_time_constants(dir.file("bad.json"));
    FAIL() << "a table that is not one must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
  }
}

TEST(TimeEstimate, TimeLeftIsThePlansEstimateAtThePaceKeptSoFar) {
  // Four trials estimated at 2 s each.
  PlanClock clock(8.0);
  EXPECT_DOUBLE_EQ(clock.left_s(0), 8.0) << "before any trial: the plan's own estimate";
  // The first took 3 s (a busier machine than the constants'): the three
  // left take 9 s.
  clock.trial_done(2.0, true);
  EXPECT_DOUBLE_EQ(clock.left_s(3.0), 9.0);
  EXPECT_EQ(clock.words(3.0), "3 s in, about 9 s left");
  // A trial that will not run comes off what is left, not off the pace.
  clock.trial_done(2.0, false);
  EXPECT_DOUBLE_EQ(clock.left_s(3.0), 6.0);
}

TEST(TimeEstimate, TheWallTimeIsReadBackAndSaidInWords) {
  WallTime w{42.0, 61.0};
  EXPECT_EQ(nlohmann::json(w).get<WallTime>().estimated_s, 42.0);
  EXPECT_EQ(nlohmann::json(w).get<WallTime>().actual_s, 61.0);
  EXPECT_EQ(wall_time_words(w), "took 1 min 1 s, estimated 42 s from the plan");
  EXPECT_FALSE(nlohmann::json(WallTime{std::nullopt, 5.0}).get<WallTime>().estimated_s);
}

}  // namespace
}  // namespace rpclab::harness
