// Tables and CSV are views of records: check them on hand-made records.
#include <gtest/gtest.h>

#include "harness/dependability/classify.h"
#include "harness/report/csv_view.h"
#include "harness/dependability/dependability_summary.h"
#include "harness/dependability/dependability_report.h"
#include "harness/record/records_file.h"
#include "harness/run/result_record.h"
#include "harness/kit/text_table.h"
#include "synthetic_records.h"
#include "netem/config/fault_profile.h"

namespace rpclab::harness {
namespace {

nlohmann::json record(const std::string& transport, int hogs, uint64_t calls, uint64_t silent_dups) {
  return dependability_record(transport, hogs, calls, silent_dups);
}

ReportOptions options() {
  ReportOptions o;
  o.data_dir = RPCLAB_SOURCE_DIR "/docs/data";
  return o;
}

TEST(Views, LevyLayoutHasTransportRowsAndLoadColumns) {
  std::vector<nlohmann::json> records = {record("sunrpc-tcp", 0, 100000, 0), record("sunrpc-tcp", 20, 100000, 0),
                                         record("sunrpc-udp", 0, 100000, 0), record("sunrpc-udp", 20, 100000, 300)};
  std::string text = dependability_report(typed_records(records), options());
  EXPECT_NE(text.find("load 0"), std::string::npos);
  EXPECT_NE(text.find("load 20"), std::string::npos);
  EXPECT_NE(text.find("sunrpc-udp retry 15 s"), std::string::npos);
  EXPECT_NE(text.find("3,000 / 3,000"), std::string::npos) << text;  // 300 of 100,000 silent, and run twice
  EXPECT_NE(text.find("0 (<38)"), std::string::npos);  // a record from before trials: Wilson's upper end
  EXPECT_NE(text.find("Sun RPC (udp) (Levy 1989)"), std::string::npos);
}

// Every table lists its rows in the order of the cells, the transport
// table's, not alphabetically.
TEST(Views, TheTablesOverTrialsKeepTheTransportTablesOrder) {
  std::vector<nlohmann::json> records;
  for (const char* t : {"sunrpc-tcp", "grpc", "xmlrpc", "jsonrpc"}) records.push_back(record(t, 0, 100000, 0));
  std::string text = dependability_report(typed_records(records), options());
  size_t title = text.find("Under load, over trials");
  ASSERT_NE(title, std::string::npos) << text;
  size_t table = text.find("\n\n", title) + 1;  // the title's paragraph, then the table, then a blank line
  std::string rows = text.substr(table, text.find("\n\n", table) - table);
  size_t at = 0;
  for (const char* t : {"\nsunrpc-tcp ", "\ngrpc ", "\nxmlrpc ", "\njsonrpc "}) {
    size_t next = rows.find(t, at);
    ASSERT_NE(next, std::string::npos) << t << " is missing, or comes too early, in:" << rows;
    at = next;
  }
}

// Cells with timed events get their own table: a row per transport, retry
// policy and at-most-once, a column per kind of event, every class; not a
// column of the steady faults' table, nor a point of its plot.
TEST(Views, FailuresHaveARowPerRetryAndAtMostOnceAndAColumnPerEvent) {
  std::vector<nlohmann::json> records;
  for (const char* profile : {"server-crash", "server-stall"})
    for (RetryChoice retry : {RetryChoice{}, RetryChoice{RetryPolicy::kApp, 5}})
      for (bool amo : {false, true}) {
        CellConfig cell;
        cell.experiment = "dependability";
        cell.transport = "sunrpc-tcp";
        cell.faults = netem::load_profile(profile);
        cell.retry = retry;
        cell.at_most_once = amo;
        uint64_t dups = retry.policy == RetryPolicy::kApp && !amo && std::string(profile) == "server-stall" ? 3 : 0;
        nlohmann::json r = dependability_record(cell, 1000, dups);
        r["events"] = {{"occurrences_per_trial", {2, 2}}, {"warnings", nlohmann::json::array()}};
        records.push_back(r);
      }
  std::string text = dependability_report(typed_records(records), options());
  EXPECT_NE(text.find("Failures TCP cannot hide"), std::string::npos) << text;
  size_t failures = text.find("Failures TCP cannot hide");
  std::string table = text.substr(failures, text.find("\n\n", text.find("-----", failures)) - failures);
  for (const char* row : {"sunrpc-tcp  ", "sunrpc-tcp +at-most-once", "sunrpc-tcp +app:5  ",
                          "sunrpc-tcp +app:5 +at-most-once", "events per trial"})
    EXPECT_NE(table.find(row), std::string::npos) << row << "\n" << table;
  EXPECT_NE(table.find("server-crash"), std::string::npos);
  EXPECT_NE(table.find("server-stall"), std::string::npos);
  EXPECT_NE(table.find("0 / 3 / 0 / 0 / 0"), std::string::npos) << table;  // the stall's silent duplicates
  EXPECT_EQ(text.find("loss 0% dup 0%"), std::string::npos) << "an event cell in the steady faults' table:\n" << text;
  ReportOptions only = options();
  only.tables = {"failures"};
  EXPECT_EQ(dependability_report(typed_records(records), only).find("Failures"), 0u);
}

// The loss 0 / dup 0 control cell has no fault backend; the table names
// only the backends that made faults.
TEST(Views, TheFaultsTableNamesOnlyTheBackendsThatMadeFaults) {
  CellConfig control;
  control.experiment = "dependability";
  control.transport = "sunrpc-tcp";
  control.topology = netem::TopologyKind::kTwoHost;
  CellConfig dup = control;
  dup.faults.dup_pct = 1;
  std::string text =
      dependability_report(typed_records({dependability_record(control, 1000, 0), dependability_record(dup, 1000, 0)}), options());
  EXPECT_NE(text.find("by nftables."), std::string::npos) << text;
  EXPECT_EQ(text.find("none"), std::string::npos) << text;
}

TEST(Views, FailedCellsAreListedWithTheirReason) {
  CellConfig cell;
  cell.experiment = "dependability";
  cell.transport = "grpc";
  CellRecord r = CellRecord::begin(cell, "test");
  mark(r, "failed", "server died mid-run (killed by SIGKILL)");
  std::string text = dependability_report({r}, options());
  EXPECT_NE(text.find("failed"), std::string::npos);
  EXPECT_NE(text.find("server died mid-run"), std::string::npos);
}

TEST(Views, AResumedCellShowsOnlyItsLastRecord) {
  CellRecord udp = typed(record("sunrpc-udp", 0, 100, 0)), tcp = typed(record("sunrpc-tcp", 0, 100, 0));
  CellRecord skipped = udp;
  mark(skipped, "skipped", "the two-host topology needs root");
  std::vector<CellRecord> latest = latest_per_cell({skipped, tcp, udp});
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(nlohmann::json(latest[0]), nlohmann::json(udp)) << "the newer record replaces the skipped one, in its place";
  EXPECT_EQ(nlohmann::json(latest[1]), nlohmann::json(tcp));
}

TEST(Views, CsvFlattensNestedFieldsAndQuotes) {
  nlohmann::json a = {{"cell", {{"x", 1}}}, {"label", "a, b"}, {"classes", {{"correct", 5}}}};
  nlohmann::json b = {{"label", "say \"hi\""}, {"extra", 2.5}};
  std::string csv = csv_of({a, b});
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

// A table wider than the terminal becomes several, each repeating the
// first column; Markdown keeps one table and puts notes in a last column.
TEST(Views, WideTablesSplitAndMarkdownKeepsNotes) {
  TextTable t({"cell", "aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"});
  t.add({"x", "1", "2", "3"});
  t.note("a note on x");
  std::string text = t.render(30);
  EXPECT_EQ(text, "cell  aaaaaaaaaa  bbbbbbbbbb\n----------------------------\nx              1           2\n\n"
                  "cell  cccccccccc\n----------------\nx              3\n    a note on x\n");
  EXPECT_EQ(t.render_markdown(), "| cell | aaaaaaaaaa | bbbbbbbbbb | cccccccccc | notes |\n|---|---:|---:|---:|---|\n"
                                 "| x | 1 | 2 | 3 | a note on x |\n");
  EXPECT_EQ(wrapped("one two three four", 9), "one two\nthree\nfour");
}

}  // namespace
}  // namespace rpclab::harness
