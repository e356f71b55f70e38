// Tables and CSV are views of records: check them on hand-made records.
#include <gtest/gtest.h>

#include "harness/classify.h"
#include "harness/csv_view.h"
#include "harness/dependability_cell.h"
#include "harness/dependability_report.h"
#include "harness/result_record.h"
#include "harness/text_table.h"
#include "synthetic_records.h"

namespace rpclab::harness {
namespace {

nlohmann::json record(const std::string& transport, int hogs, uint64_t calls, uint64_t silent_dups) {
  return dependability_record(transport, hogs, calls, silent_dups);
}

TEST(Views, LevyLayoutHasTransportRowsAndLoadColumns) {
  std::vector<nlohmann::json> records = {record("sunrpc-tcp", 0, 100000, 0), record("sunrpc-tcp", 20, 100000, 0),
                                         record("sunrpc-udp", 0, 100000, 0), record("sunrpc-udp", 20, 100000, 300)};
  std::string text = dependability_report(records, RPCLAB_SOURCE_DIR "/docs/data");
  EXPECT_NE(text.find("load 0 hogs"), std::string::npos);
  EXPECT_NE(text.find("load 20 hogs"), std::string::npos);
  EXPECT_NE(text.find("sunrpc-udp retry 15 s (default)"), std::string::npos);
  EXPECT_NE(text.find("3000 ["), std::string::npos);   // 300 of 100,000 = 3,000 per million
  EXPECT_NE(text.find("0 (<38)"), std::string::npos);  // Wilson's two-sided upper end over 100,000
  EXPECT_NE(text.find("Sun RPC (udp) (Levy 1989)"), std::string::npos);
}

TEST(Views, SilentErrorsFromFewClientsAreCalledOut) {
  nlohmann::json few = record("sunrpc-udp", 5, 100000, 294);
  few["clients"] = 8;
  few["classes"]["clients_with_silent_errors"] = 1;
  nlohmann::json many = record("sunrpc-udp", 10, 100000, 500);
  many["clients"] = 8;
  many["classes"]["clients_with_silent_errors"] = 8;
  std::string text = dependability_report({few, many}, RPCLAB_SOURCE_DIR "/docs/data");
  EXPECT_NE(text.find("294 silent errors, all from 1 of 8 clients"), std::string::npos) << text;
  EXPECT_EQ(text.find("all from 8 of 8"), std::string::npos) << text;
  EXPECT_EQ(dependability_report({many}, RPCLAB_SOURCE_DIR "/docs/data").find("from few clients"), std::string::npos);
}

TEST(Views, FailedCellsAreListedWithTheirReason) {
  CellConfig cell;
  cell.experiment = "dependability";
  cell.transport = "grpc";
  nlohmann::json r = base_record(cell, "test");
  mark(r, "failed", "server died mid-run (killed by SIGKILL)");
  std::string text = dependability_report({r}, RPCLAB_SOURCE_DIR "/docs/data");
  EXPECT_NE(text.find("failed"), std::string::npos);
  EXPECT_NE(text.find("server died mid-run"), std::string::npos);
}

TEST(Views, AResumedCellShowsOnlyItsLastRecord) {
  nlohmann::json udp = record("sunrpc-udp", 0, 100, 0), tcp = record("sunrpc-tcp", 0, 100, 0);
  nlohmann::json skipped = udp;
  mark(skipped, "skipped", "the two-host topology needs root");
  std::vector<nlohmann::json> latest = latest_per_cell({skipped, tcp, udp});
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[0], udp) << "the newer record replaces the skipped one, in its place";
  EXPECT_EQ(latest[1], tcp);
}

TEST(Views, CsvFlattensNestedFieldsAndQuotes) {
  nlohmann::json a = {{"cell", {{"x", 1}}}, {"label", "a, b"}, {"classes", {{"correct", 5}}}};
  nlohmann::json b = {{"label", "say \"hi\""}, {"extra", 2.5}};
  std::string csv = records_to_csv({a, b});
  EXPECT_EQ(csv, "label,classes.correct,extra\n\"a, b\",5,\n\"say \"\"hi\"\"\",,2.5\n");  // leading columns first
}

TEST(Views, TextTableAlignsNumbersRight) {
  TextTable t({"name", "n"});
  t.add({"a", "5"});
  t.add({"bb", "12,345"});
  EXPECT_EQ(t.render(), "name  n\n------------\na          5\nbb    12,345\n");
  EXPECT_EQ(grouped(1234567), "1,234,567");
  EXPECT_EQ(grouped(12), "12");
}

}  // namespace
}  // namespace rpclab::harness
