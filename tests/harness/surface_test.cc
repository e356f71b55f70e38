// The levy-surface views' inputs (issue 26): the cells read from records,
// the onset proportion's exact interval over trials, errors per onset, the
// table's rows and the heat map's boxes beside Levy's figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/dependability/surface.h"
#include "harness/dependability/surface_delay.h"
#include "harness/kit/plot.h"
#include "harness/record/cell_config.h"
#include "common/atomic_file.h"
#include "process/command_log.h"
#include "sunrpc/sunrpc_settings.h"
#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

// A levy-surface cell: `onsets` per trial, the trials with an onset
// bringing `errors_per_onset` errors each, `silent` per million pooled.
CellRecord surface_record(int64_t retry_ms, int hogs, const std::vector<size_t>& onsets, double errors_per_onset,
                          double silent, bool cache = false) {
  CellConfig cell;
  cell.experiment = "dependability";
  cell.block = cache ? "levy-surface-drc" : "levy-surface";
  cell.transport = "sunrpc-udp";
  cell.hogs = hogs;
  cell.clients = 8;
  cell.trials = static_cast<int>(onsets.size());
  cell.settings.set(kRetryTimeout, retry_ms);
  if (cache) cell.settings.set(sunrpc::kReplyCache, 1024);
  CellRecord r = CellRecord::begin(cell, "test");
  r.clients = 8;
  CellEpisodes e;
  e.onsets_per_trial = onsets;
  r.dependability.episodes = e;
  r.dependability.silent_per_million = MaybeNull<RatePerMillion>::of(RatePerMillion{silent, 0, silent, ""});
  std::vector<TrialRecord> trials;
  for (size_t i = 0; i < onsets.size(); ++i) {
    TrialRecord t = TrialRecord::begin(cell, 1, static_cast<uint32_t>(i + 1), static_cast<uint32_t>(onsets.size()),
                                       "", "test");
    TrialEpisodes te;
    te.onsets = onsets[i];
    te.errors_per_onset = onsets[i] ? errors_per_onset * static_cast<double>(i + 1) : 0;
    t.dependability.episodes = te;
    TrialLoad load;
    load.server_wait_us_per_timeslice = MaybeNull<double>::of(1500.0 * hogs);
    t.dependability.load = load;
    trials.push_back(t);
  }
  r.per_trial = trials;
  return r;
}

TEST(Surface, CellsHoldTheOnsetProportionOverTrialsWithItsExactInterval) {
  // 24 of 48 trials with a cascade: the widest case the preset is sized for.
  std::vector<size_t> half(48, 0);
  for (size_t i = 0; i < 24; ++i) half[i] = 1 + i % 3;
  std::vector<CellRecord> records = {surface_record(130, 10, half, 4, 2500),
                                     surface_record(20, 0, std::vector<size_t>(48, 0), 0, 0)};
  std::vector<SurfaceCell> cells = surface_cells(records);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].interval_ms, 20) << "sorted by interval";
  const SurfaceCell& c = cells[1];
  EXPECT_EQ(c.hogs, 10);
  EXPECT_EQ(c.trials, 48u);
  EXPECT_EQ(c.onset_trials, 24u) << "a trial with 3 onsets counts once";
  // R: binom.test(24, 48)$conf.int = 0.3519 0.6481
  EXPECT_NEAR(c.onset_ci95.low, 0.3519, 5e-4);
  EXPECT_NEAR(c.onset_ci95.high, 0.6481, 5e-4);
  EXPECT_LT(c.onset_ci95.high - c.onset_ci95.low, kSurfaceWidestInterval);
  EXPECT_FALSE(c.undecided());
  ASSERT_EQ(c.errors_per_onset.size(), 24u) << "only the trials with an onset";
  EXPECT_EQ(c.errors_per_onset.front(), 4);
  EXPECT_EQ(c.errors_per_onset.back(), 96);
  ASSERT_EQ(c.server_wait_ms_per_timeslice.size(), 48u);
  EXPECT_DOUBLE_EQ(c.server_wait_ms_per_timeslice[0], 15.0);
  // None in 48: the upper end is the rule of three over trials, not calls.
  EXPECT_EQ(cells[0].onset_trials, 0u);
  EXPECT_NEAR(cells[0].onset_ci95.high, 0.074, 1e-3);
}

TEST(Surface, FewTrialsInTheMiddleAreUndecided) {
  std::vector<CellRecord> records = {surface_record(50, 5, {1, 0, 1, 0, 1}, 10, 40000)};
  std::vector<SurfaceCell> cells = surface_cells(records);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_TRUE(cells[0].undecided()) << "3 of 5: the interval spans most of [0, 1]";
  std::string table = surface_table(records, ReportOptions{});
  EXPECT_NE(table.find("3 of 5 *"), std::string::npos) << table;
  EXPECT_NE(table.find("(1 such"), std::string::npos) << table;
  EXPECT_NE(table.find("30.0 (10.0-50.0)"), std::string::npos) << "median and range of errors per onset\n" << table;
  EXPECT_NE(table.find("40,000"), std::string::npos) << table;
}

TEST(Surface, TableLeavesOutOtherCellsAndShowsTheCacheApart) {
  std::vector<CellRecord> records = {surface_record(20, 20, {1, 1}, 100, 900000),
                                     surface_record(20, 20, {1, 0}, 3, 0, true)};
  CellRecord other = surface_record(20, 20, {1, 1}, 1, 1);
  other.cell.config.block = "load";  // levy1989's: not the surface's
  records.push_back(other);
  std::vector<SurfaceCell> cells = surface_cells(records);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_FALSE(cells[0].reply_cache);
  EXPECT_TRUE(cells[1].reply_cache);
  EXPECT_EQ(surface_table({other}, ReportOptions{}), "") << "no surface cells, no table";
  ReportOptions md;
  md.markdown = true;
  std::string table = surface_table(records, md);
  EXPECT_NE(table.find("| 20 ms | on |"), std::string::npos) << table;
  EXPECT_NE(table.find("900,000"), std::string::npos) << table;
}

TEST(Surface, LevysSunRpcRowIsReadByLoad) {
  auto levy = levy_sun_rpc_per_million(RPCLAB_SOURCE_DIR "/docs/data");
  ASSERT_EQ(levy.size(), 4u);
  EXPECT_EQ(levy[2], (std::pair<int, double>{10, 10}));
  EXPECT_EQ(levy[3], (std::pair<int, double>{20, 300}));
  EXPECT_TRUE(levy_sun_rpc_per_million("/nonexistent").empty());
}

TEST(Surface, HeatMapHasABoxPerCellAndLevysColumn) {
  HeatMap map;
  map.name = "m";
  map.xtics = {"20 ms", "15 s", "Levy 1989"};
  map.ytics = {"0", "20"};
  map.boxes = {{0, 0, 0, "0"}, {0, 1, 978350, "978,350"}, {2, 1, 300, "300"}};
  std::string data = heatmap_data(map);
  EXPECT_NE(data.find("0 1 978350 \"978,350\""), std::string::npos) << data;
  EXPECT_NE(data.find("2 1 300 \"300\""), std::string::npos) << data;
  std::string gp = heatmap_script(map);
  EXPECT_NE(gp.find("set xtics (\"20 ms\" 0, \"15 s\" 1, \"Levy 1989\" 2)"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set cbrange [0:6]"), std::string::npos) << "up to the decade of 978,350\n" << gp;
  EXPECT_NE(gp.find("set output \"m.svg\""), std::string::npos) << gp;
}

// Drawn as a run draws it: a box per cell without the cache (the cache's
// cells are the table's), Levy's four beside them in their own column.
TEST(Surface, HeatMapIsDrawnFromTheCellsWithoutTheCache) {
  std::vector<CellRecord> records = {surface_record(20, 0, {0, 0}, 0, 0), surface_record(20, 20, {1, 1}, 50, 978350),
                                     surface_record(15000, 20, {0, 0}, 0, 0),
                                     surface_record(20, 20, {1, 0}, 3, 0, true)};
  test::TempDir dir;
  process::CommandLog log;
  std::vector<std::string> notes;
  std::vector<std::string> pngs = surface_plots(records, RPCLAB_SOURCE_DIR "/docs/data", dir.path(), log, &notes);
  ASSERT_EQ(pngs.size(), 1u) << (notes.empty() ? "" : notes.front());
  EXPECT_TRUE(std::filesystem::exists(pngs.front()));
  std::string data = read_whole_file(dir.file("surface-heatmap.dat"));
  // x: 20 ms, 15 s, Levy; y: loads 0, 5, 10, 20 (5 and 10 from Levy's column only).
  EXPECT_NE(data.find("0 3 978350 \"978,350\""), std::string::npos) << data;
  EXPECT_NE(data.find("1 3 0 \"0\""), std::string::npos) << data;
  EXPECT_NE(data.find("2 2 10 \"10\""), std::string::npos) << data;
  EXPECT_NE(data.find("2 3 300 \"300\""), std::string::npos) << data;
  EXPECT_EQ(std::count(data.begin(), data.end(), '\n'), 1 + 3 + 4) << "a header, 3 cells, Levy's 4\n" << data;
  std::string gp = read_whole_file(dir.file("surface-heatmap.gp"));
  EXPECT_NE(gp.find("set ytics (\"0\" 0, \"5\" 1, \"10\" 2, \"20\" 3)"), std::string::npos) << gp;
}

journal::Record executed(int64_t arrival_realtime_ns, int64_t core_monotonic_ns, bool kernel_stamp = true) {
  journal::Record r{};
  r.kind = static_cast<uint8_t>(journal::RecordKind::kExecuted);
  r.known = kernel_stamp ? journal::kKnowsKernelArrival : 0;
  r.realtime_ns = arrival_realtime_ns;
  r.monotonic_ns = core_monotonic_ns;
  return r;
}

// The clocks differ by a constant (here 1e12 ns): the waits come out
// relative to the shortest, and a record without the kernel's stamp (its
// realtime is the core's own instant) is left out.
TEST(SurfaceDelay, WaitsAreArrivalToCoreOnOneClock) {
  const int64_t offset = 1'000'000'000'000;  // realtime - monotonic
  std::vector<journal::Record> records = {executed(offset + 1'000'000, 1'050'000),    // 50 us: the shortest
                                          executed(offset + 2'000'000, 27'050'000),   // 25 ms + 50 us
                                          executed(offset + 3'000'000, 3'000'000, false),
                                          executed(offset + 4'000'000, 6'050'000)};   // 2 ms + 50 us
  journal::Record answered = executed(offset, 99'000'000);
  answered.kind = static_cast<uint8_t>(journal::RecordKind::kAnsweredFromTable);
  records.push_back(answered);
  std::vector<double> ms = arrival_to_core_ms(records);
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_NEAR(ms[0], 0, 1e-9);
  EXPECT_NEAR(ms[1], 25, 1e-9);
  EXPECT_NEAR(ms[2], 2, 1e-9);
  EXPECT_TRUE(arrival_to_core_ms({}).empty());
}

TEST(SurfaceDelay, QuantilesAndTheShareLaterThanTheInterval) {
  std::vector<double> waits;
  for (int i = 1; i <= 1000; ++i) waits.push_back(i / 10.0);  // 0.1 .. 100 ms
  DelayQuantiles q = delay_quantiles(waits, 20);
  EXPECT_EQ(q.executions, 1000u);
  EXPECT_NEAR(q.p50_ms, 50, 1e-9);
  EXPECT_NEAR(q.p90_ms, 90, 1e-9);
  EXPECT_NEAR(q.p99_ms, 99, 1e-9);
  EXPECT_NEAR(q.max_ms, 100, 1e-9);
  EXPECT_EQ(q.later_than_interval, 800u) << "20.1 .. 100 ms: longer than 20, not equal to it";
  EXPECT_EQ(delay_quantiles({}, 20).executions, 0u);
}

}  // namespace
}  // namespace rpclab::harness
