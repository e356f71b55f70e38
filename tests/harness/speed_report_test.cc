// The speed report's order line must agree with Welch's test pair by pair:
// significance is not transitive, so "A = B = C" can be read as A = C when
// the test says A < C.
#include <gtest/gtest.h>

#include <sstream>

#include <algorithm>

#include "harness/speed/latency_order.h"
#include "harness/speed/paths_report.h"
#include "harness/run/result_record.h"
#include "harness/speed/rate_report.h"
#include "harness/speed/speed_report.h"
#include "harness/speed/speed_rows.h"
#include "harness/speed/speed_experiment.h"
#include "harness/report/csv_view.h"
#include "support/csv_rows.h"
#include "harness/kit/stats.h"
#include "synthetic_records.h"

namespace rpclab::harness {
namespace {

// raw-tcp ~ sunrpc-tcp and sunrpc-tcp ~ grpc (sunrpc-tcp's trials spread
// wide), but raw-tcp < grpc: tight trials 3 us apart.
const std::vector<double> kRawTcp = {100, 101, 99, 100, 100};
const std::vector<double> kSunrpcTcp = {95, 110, 90, 115, 100};
const std::vector<double> kGrpc = {103, 104, 102, 103, 103};

TEST(LatencyOrder, TheConstructedCaseIsNotTransitive) {
  EXPECT_FALSE(welch_t_test(kRawTcp, kSunrpcTcp).significant(0.01));
  EXPECT_FALSE(welch_t_test(kSunrpcTcp, kGrpc).significant(0.01));
  EXPECT_TRUE(welch_t_test(kRawTcp, kGrpc).significant(0.01));
}

TEST(LatencyOrder, ASignificantPairInsideAGroupIsNamed) {
  std::string order = latency_order({{"grpc", 103, kGrpc}, {"raw-tcp", 100, kRawTcp}, {"sunrpc-tcp", 102, kSunrpcTcp}},
                                    0.01);
  EXPECT_EQ(order, "raw-tcp, sunrpc-tcp, grpc (within a group: raw-tcp < grpc)");
}

TEST(LatencyOrder, LessThanOnlyWhereEveryPairAcrossItDiffers) {
  std::vector<double> fast = {50, 51, 49, 50, 50}, slow = {200, 201, 199, 200, 200};
  std::string order = latency_order(
      {{"raw-tcp", 100, kRawTcp}, {"grpc", 103, kGrpc}, {"raw-udp", 50, fast}, {"sunrpc-udp", 200, slow}}, 0.01);
  EXPECT_EQ(order, "raw-udp < raw-tcp < grpc < sunrpc-udp");
  order = latency_order({{"raw-udp", 50, fast}, {"sunrpc-tcp", 102, kSunrpcTcp}, {"raw-tcp", 100, kRawTcp},
                         {"grpc", 103, kGrpc}, {"sunrpc-udp", 200, slow}},
                        0.01);
  EXPECT_EQ(order, "raw-udp < raw-tcp, sunrpc-tcp, grpc < sunrpc-udp (within a group: raw-tcp < grpc)");
}

// The knee: the highest offered rate achieved to 95% with a p99 at most
// 10 times the lowest rate's. 20,000/s keeps up but its p99 is 11 times;
// 50,000/s makes 30,000. 10,000/s is the knee, whatever the points' order.
TEST(RateSweep, TheKneeIsTheHighestRateKeptUpWithATailWithinTenTimes) {
  std::vector<RatePoint> points = {{10000, 9600, 90}, {500, 501, 20}, {50000, 30000, 9000}, {20000, 19900, 220},
                                   {1000, 1002, 25}};
  ASSERT_TRUE(knee_index(points));
  EXPECT_EQ(*knee_index(points), 0u);
  points[0].achieved_per_s = 9400;  // under 95%
  EXPECT_EQ(*knee_index(points), 4u);
  EXPECT_FALSE(knee_index({{500, 400, 20}}));  // not even the lowest kept up
  EXPECT_FALSE(knee_index({}));
}

CellRecord rate_cell(const std::string& transport, double rate, double achieved, double p50, double p99) {
  CellConfig c;
  c.experiment = "speed";
  c.transport = transport;
  c.size = 12;
  c.trials = 3;
  if (rate > 0) c.rate_per_s = rate;
  CellRecord r = CellRecord::begin(c, "test");
  r.transport = transport;
  r.topology = "loopback";
  r.connect = "persistent";
  r.speed.size = size_t{12};
  LatencyFigures& l = r.speed.latency;
  l.calls_measured = 3000;
  l.p50_us = p50;
  l.p99_us = p99;
  l.p999_us = p99 * 2;
  l.calls_per_s = achieved;
  if (rate > 0) l.offered_per_s = rate;
  return r;
}

TEST(RateSweep, TheTableMarksEachTransportsKneeBesideItsClosedLoop) {
  std::vector<CellRecord> records = {
      rate_cell("raw-tcp", 0, 60000, 15, 30),       rate_cell("raw-tcp", 1000, 1001, 18, 40),
      rate_cell("raw-tcp", 10000, 9990, 17, 45),    rate_cell("grpc", 0, 9000, 100, 200),
      rate_cell("grpc", 1000, 1001, 110, 250),      rate_cell("grpc", 10000, 8000, 9000, 40000)};
  std::string text = rate_sweep_table(records);
  EXPECT_NE(text.find("  raw-tcp: 10,000/s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  grpc: 1,000/s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("closed"), std::string::npos) << text;
  EXPECT_NE(text.find("p50 110.0 us at 1,000/s, 100.0 us closed loop (1.10x)"), std::string::npos) << text;
  std::vector<PlotSpec> plots = rate_plot_specs(records);
  ASSERT_EQ(plots.size(), 1u);
  EXPECT_TRUE(plots[0].logx && plots[0].logy);
  ASSERT_EQ(plots[0].series.size(), 2u);  // one line per transport, the closed loop not on it
  EXPECT_EQ(plots[0].series[0].x, (std::vector<double>{1000, 10000}));
  // Closed-loop tables leave the open-loop cells out.
  EXPECT_EQ(speed_report(records, {RPCLAB_SOURCE_DIR "/docs/data"}).find("@"), std::string::npos);
  EXPECT_EQ(rate_sweep_table({rate_cell("grpc", 0, 9000, 100, 200)}), "");
}

TEST(SpeedReport, TheOrderLineAgreesWithWelchForEveryPair) {
  std::vector<nlohmann::json> records = {speed_record("raw-tcp", 1, 12, kRawTcp),
                                         speed_record("sunrpc-tcp", 1, 12, kSunrpcTcp),
                                         speed_record("grpc", 1, 12, kGrpc)};
  std::string text = speed_report(typed_records(records), {RPCLAB_SOURCE_DIR "/docs/data"});
  EXPECT_EQ(text.find("raw-tcp = sunrpc-tcp = grpc"), std::string::npos) << text;
  EXPECT_NE(text.find("1 client(s),   12: raw-tcp, sunrpc-tcp, grpc (within a group: raw-tcp < grpc)"),
            std::string::npos)
      << text;
}

// A loopback table has no column of dashes for bytes on the wire (they are
// counted on the two-host link only), a tail percentile from too few calls
// (p99.9 of 150 is the maximum) is not printed, and the floor column's
// dashes line up with its digits.
TEST(SpeedReport, ATableShowsOnlyWhatItsCellsMeasured) {
  std::vector<nlohmann::json> records = {speed_record("raw-tcp", 1, 12, kRawTcp), speed_record("grpc", 1, 12, kGrpc)};
  for (nlohmann::json& r : records) {
    r["calls_measured"] = 150;
    r["p999_us"] = 999.0;
    r["max_us"] = 999.0;
  }
  records[1]["ratio_to_floor"] = 1.5;
  std::string table = speed_report(typed_records(records), {RPCLAB_SOURCE_DIR "/docs/data", false, false,
                                                            {"loopback-persistent"}});
  std::string header = table.substr(table.find("transport"), table.find('\n', table.find("transport")) - table.find("transport"));
  EXPECT_EQ(header.find("bytes/call"), std::string::npos) << table;
  EXPECT_NE(table.find("counted on the two-host link only"), std::string::npos) << table;
  EXPECT_EQ(table.find("999.0  "), table.find("999.0")) << "p99.9 of 150 calls is the maximum; shown once:\n" << table;
  EXPECT_NE(table.find("fewer than 100 or 1,000 calls"), std::string::npos) << table;
  // The dash of the floor's own row and grpc's 1.50 end in the same column.
  std::istringstream lines(table);
  std::vector<size_t> ends;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("raw-tcp", 0) == 0 || line.rfind("grpc", 0) == 0) ends.push_back(line.find_last_not_of(' '));
  ASSERT_EQ(ends.size(), 2u) << table;
  EXPECT_EQ(ends[0], ends[1]) << table;
}

// Noise is marked where it is shown (issue 39): a p50 below the raw
// floor's in the same run, and a percentile with fewer than 10 of the
// cell's calls beyond it (p99 of 300 calls), in the text table, its
// Markdown and report.html's "Every cell", the mark explained once; a
// cell measured well keeps its figures bare.
TEST(SpeedReport, NoiseIsMarkedInEveryView) {
  std::vector<nlohmann::json> records = {speed_record("raw-tcp", 1, 12, kRawTcp),
                                         speed_record("sunrpc-tcp", 1, 12, {77, 77, 77, 77, 77}),
                                         speed_record("grpc", 1, 12, kGrpc)};
  records[0]["calls_measured"] = 100000;
  records[1]["calls_measured"] = 300;
  records[1]["ratio_to_floor"] = 0.77;
  records[2]["calls_measured"] = 100000;
  records[2]["ratio_to_floor"] = 1.03;
  std::vector<CellRecord> typed = typed_records(records);
  for (bool markdown : {false, true}) {
    std::string table = speed_report(typed, {RPCLAB_SOURCE_DIR "/docs/data", markdown, false, {"loopback-persistent"}});
    EXPECT_NE(table.find("77.0~"), std::string::npos) << "p50 below the floor's:\n" << table;
    EXPECT_NE(table.find("154.0~"), std::string::npos) << "p99 of 300 calls: 3 beyond it:\n" << table;
    EXPECT_EQ(table.find("103.0~"), std::string::npos) << "grpc is measured well:\n" << table;
    EXPECT_EQ(table.find("100.0~"), std::string::npos) << "the floor is measured well:\n" << table;
    size_t note = table.find("~ = noise, not a finding");
    ASSERT_NE(note, std::string::npos) << table;
    EXPECT_EQ(table.find("~ = noise", note + 1), std::string::npos) << "explained once";
  }
  CellFigures figures = speed_cell_figures();
  EXPECT_NE(figures.note.find("~ = noise, not a finding"), std::string::npos);
  std::vector<std::string> noisy = figures.values(typed[1]), clean = figures.values(typed[2]);
  EXPECT_EQ(noisy[1], "77.0~");
  EXPECT_EQ(noisy[3], "154.0~");
  EXPECT_EQ(clean[1], "103.0");
  EXPECT_EQ(clean[3], "206.0");
  // results.csv: a column of the percentiles marked, empty where none is.
  EXPECT_EQ(noisy_percentiles(typed[1]), (std::vector<std::string>{"p50", "p99"})) << "no p99.9 recorded";
  std::string csv = records_to_csv(typed, speed_experiment().csv_columns);
  std::vector<std::vector<std::string>> rows = test::csv_rows(csv);
  ASSERT_EQ(rows.size(), 4u) << csv;
  const std::vector<std::string>& columns = rows.front();
  size_t noise = static_cast<size_t>(std::find(columns.begin(), columns.end(), "noisy_percentiles") - columns.begin());
  ASSERT_LT(noise, columns.size()) << csv;
  std::vector<std::string> noise_of;
  for (size_t i = 1; i < rows.size(); ++i) noise_of.push_back(rows[i].at(noise));
  EXPECT_EQ(noise_of, (std::vector<std::string>{"", "p50 p99", ""})) << csv;
  // The plots: the legend of a series with a noisy point says where.
  std::vector<PlotSpec> plots = speed_plot_specs(typed);
  ASSERT_FALSE(plots.empty());
  std::vector<std::string> titles;
  for (const Series& series : plots.front().series) titles.push_back(series.title);
  EXPECT_EQ(plots.front().name, "latency-vs-size");
  EXPECT_EQ(titles, (std::vector<std::string>{"raw-tcp", "sunrpc-tcp (~ noise at 12 B)", "grpc"}));
  // Levy's table shows means of per-call cells: a mean carries its cell's
  // p50 mark, explained once under the table.
  std::vector<nlohmann::json> per_call;
  for (const auto& [transport, ratio] : {std::pair<const char*, double>{"sunrpc-tcp", 0.9}, {"grpc", 1.4}}) {
    CellConfig cell;
    cell.experiment = "speed";
    cell.transport = transport;
    cell.connect = ConnectMode::kPerCall;
    cell.size = 12;
    nlohmann::json r = speed_record(cell, {500, 500, 500});
    r["calls_measured"] = 100000;
    r["ratio_to_floor"] = ratio;
    r["seconds_per_100_calls"] = ratio / 20;
    per_call.push_back(r);
  }
  std::string levy = speed_report(typed_records(per_call), {RPCLAB_SOURCE_DIR "/docs/data", false, false, {"levy"}});
  EXPECT_NE(levy.find("0.0450~"), std::string::npos) << "below the floor:\n" << levy;
  EXPECT_NE(levy.find("0.0700"), std::string::npos) << levy;
  EXPECT_EQ(levy.find("0.0700~"), std::string::npos) << "above the floor:\n" << levy;
  EXPECT_NE(levy.find("~ = noise, not a finding"), std::string::npos) << levy;
}

// `rpclab report --table` (and through it tools/docs-tables.sh) gets
// the tables it names and no other, in the order it names them.
TEST(SpeedReport, TablesByIdAreThoseTablesAlone) {
  std::vector<CellRecord> records = typed_records({speed_record("raw-tcp", 1, 12, kRawTcp), speed_record("grpc", 1, 12, kGrpc)});
  const std::string data = RPCLAB_SOURCE_DIR "/docs/data";
  auto tables = [&](std::vector<std::string> ids) {
    ReportOptions o{data};
    o.tables = std::move(ids);
    return speed_report(records, o);
  };
  std::string full = speed_report(records, {data});
  std::string latency = tables({"loopback-persistent"});
  ASSERT_NE(latency.find("Per-call latency, persistent connection, loopback"), std::string::npos) << full;
  EXPECT_NE(full.find(latency.substr(0, latency.find("Order by"))), std::string::npos);
  EXPECT_EQ(latency.find("Calibration"), std::string::npos) << latency;
  std::string both = tables({"not-measured", "loopback-persistent"});
  EXPECT_EQ(both, latency) << "every cell was measured: not-measured has nothing to say";
  EXPECT_EQ(tables({"no-such-table"}), "");
  std::vector<std::string> ids;
  for (const ReportTable& t : speed_tables()) ids.push_back(t.id);
  for (const char* id : {"levy", "loopback-persistent", "calibration", "not-measured"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
}

CellRecord path_cell(const std::string& transport, const std::string& path, int replicas, int at_most_once, double p50,
                     double p99, double server_cpu, std::optional<double> proxy_cpu) {
  CellConfig c;
  c.experiment = "speed";
  c.transport = transport;
  c.op = "next";
  c.trials = 3;
  c.path = path;
  c.replicas = replicas;
  c.at_most_once = at_most_once > 0;
  c.at_most_once_shared = at_most_once > 1;
  CellRecord r = CellRecord::begin(c, "test");
  mark(r, "ok", "");
  r.transport = transport;
  r.topology = "two-host";
  r.connect = "persistent";
  r.speed.latency.calls_measured = 1500;
  r.speed.latency.p50_us = p50;
  r.speed.latency.p99_us = p99;
  CpuPerCall cpu{20, server_cpu, std::nullopt};
  cpu.proxy = proxy_cpu;
  r.speed.cpu_us_per_call = MaybeNull<CpuPerCall>::of(cpu);
  return r;
}

TEST(PathsReport, EachProxyAddsToDirectAndTheSharedTableToEachReplicasOwn) {
  std::vector<CellRecord> records = {
      path_cell("grpc", "direct", 1, 0, 100, 200, 30, std::nullopt),
      path_cell("grpc", "haproxy", 2, 0, 150, 260, 31, 12.5),
      path_cell("grpc", "haproxy", 2, 1, 160, 280, 35, 12.0),
      path_cell("grpc", "haproxy", 2, 2, 240, 400, 50, 12.0),
      path_cell("grpc", "grpc-round-robin", 2, 0, 105, 210, 30, std::nullopt)};
  std::string text = paths_cost_table(records);
  EXPECT_NE(text.find("The price of the path"), std::string::npos) << text;
  EXPECT_NE(text.find("+50.0 (1.50x)"), std::string::npos) << text;   // haproxy's p50 beside direct's
  EXPECT_NE(text.find("+60.0 (1.30x)"), std::string::npos) << text;   // its p99
  EXPECT_NE(text.find("12.5"), std::string::npos) << text;            // the proxy's CPU per call
  EXPECT_NE(text.find("grpc-round-robin x2"), std::string::npos) << text;
  EXPECT_NE(text.find("shared at-most-once table"), std::string::npos) << text;
  EXPECT_NE(text.find("+80.0 (1.50x)"), std::string::npos) << text;   // shared beside each replica's own
  // Registered as the speed report's `paths` table; no path cell, no table.
  auto tables = speed_tables();
  EXPECT_TRUE(std::any_of(tables.begin(), tables.end(), [](const ReportTable& t) { return t.id == "paths"; }));
  EXPECT_EQ(paths_cost_table({rate_cell("grpc", 0, 9000, 100, 200)}), "");
}

}  // namespace
}  // namespace rpclab::harness
