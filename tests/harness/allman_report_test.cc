// The Allman workload's bytes and tables: the link's frame counters turned
// into the RPC's own bytes each way, and Allman's Table 5 and the speed
// table built from records, with his 2003 figures beside the rows he has.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "ops/kiraly.h"
#include "harness/speed/allman_report.h"
#include "harness/speed/speed_report.h"
#include "harness/speed/speed_rows.h"
#include "harness/speed/speed_summary.h"
#include "synthetic_records.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

const std::string kData = RPCLAB_SOURCE_DIR "/docs/data";

json cell_record(const std::string& transport, const std::string& op, size_t n, double request, double response) {
  CellConfig cell;
  cell.experiment = "speed";
  cell.transport = transport;
  cell.topology = netem::TopologyKind::kTwoHost;
  cell.op = op;
  cell.size = n;
  json r = speed_record(cell, {100, 101, 99});
  r["wire"] = {{"request_bytes_per_call", request}, {"response_bytes_per_call", response}};
  r["cpu_us_per_call"] = {{"client", 10.0}, {"server", 20.0}};
  return r;
}

std::vector<json> log_transform_records() {
  return {cell_record("raw-tcp", "log-transform", 50000, 400014, 400009),
          cell_record("xmlrpc", "log-transform", 50000, 2400000, 2500000),
          cell_record("xmlrpc", "log-transform", 5000, 240000, 250000),
          speed_record("raw-tcp", 1, 12, {50, 51, 49})};  // ECHO: not Allman's
}

// The first line of `table` holding every one of `words` as a whole word, or "".
std::string line_of(const std::string& table, const std::vector<std::string>& words) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::set<std::string> have;
    std::istringstream in(line);
    for (std::string w; in >> w;) have.insert(w);
    bool all = true;
    for (const std::string& w : words) all = all && have.count(w);
    if (all) return line;
  }
  return "";
}

TEST(AllmanBytes, FrameHeadersComeOffEveryFrameEachWay) {
  // Two trials, 12 calls served: requests of 1000 B in one frame each plus
  // 4 pure ACKs; replies of 8 B, one frame each.
  auto counted = [](const WireCounts& w) {
    TrialRecord t;
    t.experiment = "speed";
    t.speed.wire = MaybeNull<WireCounts>::of(w);
    return t;
  };
  TrialRecord trial = counted({0, 0, 6 * (1000 + 66) + 2 * 66, 8, 6 * (8 + 66), 6});
  MaybeNull<WirePerCall> w = wire_summary(*find_transport("raw-tcp"), {trial, trial}, 12);
  ASSERT_TRUE(w.has_value() && w->each_way);
  EXPECT_DOUBLE_EQ(w->each_way->request_bytes_per_call, 1000);
  EXPECT_DOUBLE_EQ(w->each_way->response_bytes_per_call, 8);
  EXPECT_DOUBLE_EQ(w->each_way->request_frame_bytes_per_call, (6 * 1066 + 132) / 6.0);
  // UDP frames carry 8 B of UDP header, not 32 of TCP.
  TrialRecord udp = counted({0, 0, 1000 + 42, 1, 8 + 42, 1});
  EXPECT_DOUBLE_EQ(wire_summary(*find_transport("raw-udp"), {udp}, 1)->each_way->request_bytes_per_call, 1000);
  // A trial without counters (loopback): nothing to say.
  TrialRecord loopback = trial;
  loopback.speed.wire = MaybeNull<WireCounts>::null();
  EXPECT_FALSE(wire_summary(*find_transport("raw-tcp"), {trial, loopback}, 12).has_value());
}

TEST(AllmanBytes, Table5ShowsTheLargestNBesideAllmansFigures) {
  std::string table = allman_bytes_table(typed_records(log_transform_records()), kData);
  std::string xml = line_of(table, {"log-transform", "50000", "xmlrpc"});
  ASSERT_FALSE(xml.empty()) << table;
  // (2,400,000 + 2,500,000) / (400,014 + 400,009) = 6.12; Allman's 6.16.
  EXPECT_NE(xml.find("2,400,000"), std::string::npos) << xml;
  EXPECT_NE(xml.find("6.12"), std::string::npos) << xml;
  EXPECT_NE(xml.find("2459521"), std::string::npos) << xml;
  EXPECT_NE(xml.find("6.16"), std::string::npos) << xml;
  std::string raw = line_of(table, {"log-transform", "50000", "raw-tcp"});
  EXPECT_NE(raw.find("400006"), std::string::npos) << raw;  // java.net's
  EXPECT_EQ(line_of(table, {"5000"}), "") << "only the largest N:\n" << table;
}

TEST(AllmanBytes, TheSpeedTableHasEveryNAndTheReportKeepsLevysTablesToEcho) {
  std::vector<CellRecord> records = typed_records(log_transform_records());
  std::string speed = allman_speed_table(records, kData);
  EXPECT_NE(line_of(speed, {"log-transform", "5000", "xmlrpc"}), "") << speed;
  EXPECT_NE(line_of(speed, {"log-transform", "50000", "xmlrpc", "95.303"}), "") << speed;
  EXPECT_EQ(line_of(speed, {"log-transform", "5000", "95.303"}), "") << "2003's figure is for N = 50,000 only";
  std::string report = speed_report(records, {kData});
  EXPECT_NE(report.find("as Allman's Table 5"), std::string::npos) << report;
  // Levy's percentile tables list ECHO cells by size: the 12 B one only.
  EXPECT_NE(line_of(report, {"raw-tcp", "12"}), "") << report;
  EXPECT_EQ(line_of(report, {"xmlrpc", "1", "50000"}), "") << "an Allman cell in Levy's tables:\n" << report;
}

// What XML-RPC's encoding and the rest of its work cost, from the outside:
// both sides' CPU per call less the floor's at the same operation and N.
TEST(AllmanBytes, TheSpeedTableGivesTheCpuOverTheFloors) {
  std::vector<json> records = log_transform_records();
  records[1]["cpu_us_per_call"] = {{"client", 40.0}, {"server", 70.5}};  // xmlrpc at 50,000; the floor: 10 + 20
  std::string speed = allman_speed_table(typed_records(records), kData);
  EXPECT_NE(line_of(speed, {"log-transform", "50000", "xmlrpc", "80.5"}), "") << speed;
  EXPECT_NE(line_of(speed, {"log-transform", "5000", "xmlrpc", "-"}), "") << "no floor at 5,000:\n" << speed;
  std::string floor = line_of(speed, {"log-transform", "50000", "raw-tcp"});
  EXPECT_EQ(floor.find("80.5"), std::string::npos) << floor;
}

TEST(AllmanBytes, NoAllmanRecordsNoAllmanTables) {
  std::vector<CellRecord> echo = typed_records({speed_record("raw-tcp", 1, 12, {50, 51, 49})});
  EXPECT_EQ(allman_bytes_table(echo, kData), "");
  EXPECT_EQ(speed_report(echo, {kData}).find("Allman"), std::string::npos);
}

}  // namespace
}  // namespace rpclab::harness

namespace rpclab::harness {
namespace {

// Kiraly's table: the record rows only, the response per photo byte
// (base64's 4/3 on the text transports) and his 2018 figure beside the
// transports he ran.
TEST(KiralyTable, ShowsBase64sOverheadAndThe2018FiguresBesideTheirTransports) {
  size_t photo = kKiralyPhotoBytes;
  std::vector<json> records = {cell_record("raw-tcp", "get-record", photo, 17, photo + 140.0),
                               cell_record("jsonrpc", "get-record", photo, 200, 4.0 * photo / 3 + 400),
                               cell_record("xmlrpc-pstream", "get-record", photo, 300, 1.35 * photo),
                               cell_record("jsonrpc", "get-record", 0, 200, 400),
                               cell_record("xmlrpc", "log-transform", 5000, 240000, 250000)};
  std::string table = kiraly_table(typed_records(records), kData);
  EXPECT_NE(line_of(table, {"1,048,576", "jsonrpc", "1.334", "23.8575"}), "") << table;
  EXPECT_NE(line_of(table, {"0", "jsonrpc", "1.7460"}), "") << table;
  std::string pstream = line_of(table, {"1,048,576", "xmlrpc-pstream", "1.350"});
  ASSERT_NE(pstream, "") << table;
  EXPECT_EQ(pstream.find("16.8776"), std::string::npos) << "Kiraly ran XML-RPC over HTTP only: " << pstream;
  EXPECT_EQ(line_of(table, {"log-transform"}), "") << table;
  EXPECT_EQ(line_of(allman_bytes_table(typed_records(records), kData), {"get-record"}), "");
  EXPECT_EQ(kiraly_table(typed_records(log_transform_records()), kData), "");
}

// Levy's tables and the latency plots take ECHO only: not Kiraly's
// records, Allman's, nor the at-most-once workload's NEXT.
TEST(KiralyTable, OnlyEchoRecordsAreLevys) {
  EXPECT_TRUE(echo_run(typed(speed_record("raw-tcp", 1, 12, {50, 51, 49}))));
  for (const char* op : {"get-record", "log-transform", "next"})
    EXPECT_FALSE(echo_run(typed(cell_record("raw-tcp", op, 0, 1, 1)))) << op;
}

}  // namespace
}  // namespace rpclab::harness
