// The views of a run folder, made from real records: the committed run
// folders in tests/harness/fixtures/views/ hold records of runs of the
// dependability and speed experiments (a few cells of each kind), and
// their expected/ folders what the build before typed records made of
// them: the tables as text and as Markdown, results.csv, report.html
// (without its plots, which gnuplot draws) and each plot's data and
// script. RPCLAB_WRITE_VIEWS=1 writes expected/ instead of comparing, and
// fails each view it wrote: a run that writes them checks nothing, so it
// is never green; the new files are read in `git diff` as a change of
// the views' specification, and a run without it then compares.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/report/csv_view.h"
#include "harness/report/html_report.h"
#include "harness/cli/experiments.h"
#include "harness/run/experiment.h"
#include "harness/record/records_file.h"
#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = RPCLAB_SOURCE_DIR "/tests/harness/fixtures/views/";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Compares `text` with expected/NAME, or writes it there.
void expect_view(const std::string& folder, const std::string& name, const std::string& text) {
  std::string path = folder + "/expected/" + name;
  if (std::getenv("RPCLAB_WRITE_VIEWS")) {
    bool same = fs::exists(path) && read_text(path) == text;
    fs::create_directories(folder + "/expected");
    std::ofstream(path) << text;
    ADD_FAILURE() << "RPCLAB_WRITE_VIEWS: wrote " << path << (same ? " (unchanged)" : " (changed)")
                  << " from the code under test, compared with nothing; review `git diff`, then run without it";
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path;
  EXPECT_EQ(text, read_text(path)) << name << " differs from " << path;
}

void check_views(const std::string& experiment_name) {
  std::string folder = kFixtures + experiment_name;
  std::vector<std::string> warnings;
  auto records = latest_per_cell(read_cell_records(folder + "/results.jsonl", &warnings));
  EXPECT_TRUE(warnings.empty());
  ASSERT_FALSE(records.empty());
  const Experiment& experiment = find_experiment(experiment_name);
  ReportOptions options;
  options.data_dir = RPCLAB_SOURCE_DIR "/docs/data";
  expect_view(folder, "report.txt", experiment.report(records, options));
  options.markdown = true;
  std::string markdown = experiment.report(records, options);
  expect_view(folder, "report.md", markdown);
  expect_view(folder, "results.csv", records_to_csv(records));
  HtmlReportInput in;
  in.metadata = *read_run_metadata(folder + "/metadata.json");
  in.records = records;
  in.headline_markdown = experiment.headline(records, options);
  options.headline = false;
  in.tables_markdown = experiment.report(records, options);
  in.commands_log = read_text(folder + "/commands.log");
  in.cell_figures = experiment.cell_figures;
  expect_view(folder, "report.html", html_report(in));
  test::TempDir dir;
  process::CommandLog log;
  std::vector<std::string> notes;
  experiment.plots(records, dir.path(), log, &notes);
  std::vector<std::string> drawn;
  for (const auto& entry : fs::directory_iterator(dir.path()))
    if (entry.path().extension() == ".dat" || entry.path().extension() == ".gp")
      drawn.push_back(entry.path().filename().string());
  std::sort(drawn.begin(), drawn.end());
  std::string list;
  for (const std::string& f : drawn) list += f + "\n";
  expect_view(folder, "plots.txt", list);
  for (const std::string& f : drawn) expect_view(folder, f, read_text(dir.file(f)));
}

TEST(FixtureViews, Dependability) { check_views("dependability"); }
TEST(FixtureViews, Speed) { check_views("speed"); }

// report.txt's aligned tables: each a header line over a line of dashes,
// its rows up to the next blank line or note (a line in parentheses); a row's cells are separated by two
// or more spaces (TextTable's gap), and empty cells dropped.
std::vector<std::vector<std::vector<std::string>>> text_tables(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  auto dashes = [](const std::string& l) { return !l.empty() && l.find_first_not_of('-') == std::string::npos; };
  auto cells = [](const std::string& l) {
    std::vector<std::string> out;
    std::string cell;
    for (size_t i = 0; i <= l.size(); ++i) {
      if (i == l.size() || (l[i] == ' ' && i + 1 < l.size() && l[i + 1] == ' ')) {
        size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
        if (b != std::string::npos) out.push_back(cell.substr(b, e - b + 1));
        cell.clear();
      } else {
        cell += l[i];
      }
    }
    return out;
  };
  std::vector<std::vector<std::vector<std::string>>> tables;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (dashes(lines[i]) || !dashes(lines[i + 1]) || (i > 0 && !lines[i - 1].empty())) continue;
    std::vector<std::vector<std::string>> table = {cells(lines[i])};
    for (size_t j = i + 2; j < lines.size() && !lines[j].empty() && lines[j][0] != '('; ++j)  // "(...)": a note under it
      if (!dashes(lines[j])) table.push_back(cells(lines[j]));
    tables.push_back(table);
  }
  return tables;
}

// An HTML table's rows, each its cells' text (entities undone), empty cells dropped.
std::vector<std::vector<std::string>> html_rows(const std::string& table) {
  auto unescape = [](std::string s) {
    const std::vector<std::pair<std::string, std::string>> entities = {
        {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
    for (const auto& [from, to] : entities)
      for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
    return s;
  };
  std::vector<std::vector<std::string>> rows;
  for (size_t tr = table.find("<tr>"); tr != std::string::npos; tr = table.find("<tr>", tr + 1)) {
    std::string row = table.substr(tr, table.find("</tr>", tr) - tr);
    std::vector<std::string> cells;
    for (size_t c = row.find("<t"); c != std::string::npos; c = row.find("<t", c + 1)) {
      if (row.compare(c, 3, "<td") != 0 && row.compare(c, 3, "<th") != 0) continue;
      size_t open = row.find('>', c) + 1, close = row.find("</t", open);
      std::string text = unescape(row.substr(open, close - open));
      size_t b = text.find_first_not_of(' '), e = text.find_last_not_of(' ');
      if (b != std::string::npos) cells.push_back(text.substr(b, e - b + 1));
      c = close;
    }
    rows.push_back(cells);
  }
  return rows;
}

// report.html's speed tables are HTML tables, one per table of report.txt,
// with report.txt's figures cell for cell (numbers right-aligned), not
// the text in a <pre> block.
TEST(FixtureViews, SpeedTablesAreHtmlTablesWithReportTxtsFigures) {
  std::string folder = kFixtures + "speed";
  auto records = latest_per_cell(read_cell_records(folder + "/results.jsonl", nullptr));
  const Experiment& experiment = find_experiment("speed");
  ReportOptions options;
  options.data_dir = RPCLAB_SOURCE_DIR "/docs/data";
  auto text = text_tables(experiment.report(records, options));
  ASSERT_GE(text.size(), 5u) << "the fixture's report.txt has Levy's, Allman's, Kiraly's and the latency tables";
  options.markdown = true;
  HtmlReportInput in;
  in.metadata = *read_run_metadata(folder + "/metadata.json");
  in.records = records;
  in.tables_markdown = experiment.report(records, options);
  std::string page = html_report(in);
  size_t from = page.find("id=\"tables\""), to = page.find("id=\"plots\"");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  std::string section = page.substr(from, to - from);
  std::vector<std::string> tables;
  for (size_t t = section.find("<table>"); t != std::string::npos; t = section.find("<table>", t + 1))
    tables.push_back(section.substr(t, section.find("</table>", t) - t));
  ASSERT_EQ(tables.size(), text.size()) << section;
  for (size_t i = 0; i < tables.size(); ++i) {
    EXPECT_EQ(html_rows(tables[i]), text[i]) << "table " << i << ":\n" << tables[i];
    EXPECT_NE(tables[i].find("<td class=\"num\">"), std::string::npos) << "numbers right-aligned:\n" << tables[i];
  }
  // The order lines stay aligned text; no table is left in a <pre> block.
  for (size_t p = section.find("<pre>"); p != std::string::npos; p = section.find("<pre>", p + 1))
    EXPECT_EQ(section.substr(p, section.find("</pre>", p) - p).find("------"), std::string::npos) << section;
}

}  // namespace
}  // namespace rpclab::harness
