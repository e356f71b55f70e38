// The paths table (harness/dependability/paths_report.cc) from planted
// records: every class a call can end in that the question asks about has
// its column, so a path that lost calls silently shows it. Before
// 2026-12-07 the table had silent duplicates and no silent losses, and the
// nginx UDP cells of paths run 20261207-193358 lost 10 calls silently
// (a reply cache answered a call with another client's reply) where the
// table showed nothing.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness/cli/experiments.h"
#include "harness/dependability/paths_report.h"
#include "harness/run/result_record.h"
#include "harness/run/run_cells.h"
#include "synthetic_trials.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

CellConfig nginx_udp_cell() {
  CellConfig c = load_cell(0);
  c.block = "paths";
  c.path = "nginx";
  c.replicas = 2;
  c.clients = 4;
  c.calls_per_client = 1000;
  c.trials = 3;
  return c;
}

// A trial whose calls include `lost` silent losses and `twice` silent
// duplicates.
json trial_with(const CellConfig& cell, uint32_t number, uint64_t lost, uint64_t twice) {
  json t = trial(cell, number, {twice, 0, 0, 0}, 0, 1.0);
  t["classes"]["silent_loss"] = lost;
  t["classes"]["correct"] = t["classes"]["correct"].get<uint64_t>() - lost;
  return t;
}

// The row's cells under the table's header, by column name (Markdown).
std::map<std::string, std::string> row_of(const std::string& table, const std::string& first_cell) {
  auto cells = [](const std::string& line) {
    std::vector<std::string> out;
    size_t at = 1;
    for (size_t bar; (bar = line.find('|', at)) != std::string::npos; at = bar + 1) {
      std::string cell = line.substr(at, bar - at);
      cell.erase(0, cell.find_first_not_of(' '));
      cell.erase(cell.find_last_not_of(' ') + 1);
      out.push_back(cell);
    }
    return out;
  };
  std::vector<std::string> header;
  std::map<std::string, std::string> row;
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| transport", 0) == 0) header = cells(line);
    else if (!header.empty() && line.rfind("| " + first_cell + " ", 0) == 0) {
      std::vector<std::string> values = cells(line);
      for (size_t i = 0; i < header.size() && i < values.size(); ++i) row[header[i]] = values[i];
    }
  }
  return row;
}

TEST(PathsReport, SilentLossesHaveTheirColumn) {
  CellConfig cell = nginx_udp_cell();
  std::vector<CellRecord> records = {cell_record(
      find_experiment("dependability"), cell, 1, "/nowhere",
      typed_trials({trial_with(cell, 1, 2, 0), trial_with(cell, 2, 0, 3), trial_with(cell, 3, 1, 0)}), {}, "test")};
  ReportOptions markdown;
  markdown.markdown = true;
  std::string table = paths_table(records, markdown);
  std::map<std::string, std::string> row = row_of(table, "sunrpc-udp");
  ASSERT_FALSE(row.empty()) << table;
  EXPECT_EQ(row["silent loss"], "3") << table;
  EXPECT_EQ(row["silent dup"], "3") << table;
  EXPECT_NE(table.find("silent loss = the client saw success and the call never ran"), std::string::npos) << table;
}

}  // namespace
}  // namespace rpclab::harness
