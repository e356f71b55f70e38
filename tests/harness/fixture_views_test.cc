// The views of a run folder, made from real records: the committed run
// folders in tests/harness/fixtures/views/ hold records of runs of the
// dependability and speed experiments (a few cells of each kind).
//
// The specification (the *SayTheRecordsFigures tests, below): figures the
// test works out itself from the records' raw JSON lines (calls by class,
// what a remedy's zero cost, the bounds a clean cell still allows, p50s
// over their floors, results.csv as the records' fields), each looked for
// where a reader finds it in the view. They fail when the code under test
// gets a figure wrong, whatever its expected/ files say.
//
// Secondary, the golden files: expected/ holds what the code made of the
// records when last reviewed (the tables as text and as Markdown,
// results.csv, report.html without its plots, each plot's data and
// script), so a change nobody meant (a word, a column, a plot's script)
// shows. RPCLAB_WRITE_VIEWS=1 writes expected/ instead of comparing, and
// fails each view it wrote: a run that writes them checks nothing, so it
// is never green; the new files are read in `git diff` as a change of
// the views, and a run without it then compares.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/report/csv_view.h"
#include "harness/report/html_report.h"
#include "harness/cli/experiments.h"
#include "harness/run/experiment.h"
#include "harness/record/records_file.h"
#include "support/csv_rows.h"
#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

namespace fs = std::filesystem;
using test::csv_rows;

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
  expect_view(folder, "results.csv", records_to_csv(records, experiment.csv_columns));
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
// Each with its title: the first line of the paragraph above it ("" when
// a table or nothing is above it).
struct TextTable {
  std::string title;
  std::vector<std::vector<std::string>> rows;  // rows[0]: the header
};

std::vector<TextTable> titled_tables(const std::string& text) {
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
  std::vector<TextTable> tables;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (dashes(lines[i]) || !dashes(lines[i + 1]) || (i > 0 && !lines[i - 1].empty())) continue;
    TextTable table;
    if (i >= 2 && !lines[i - 2].empty()) {  // the paragraph above, unless it is a table
      size_t top = i - 2;
      bool a_table = dashes(lines[top]);
      for (; top > 0 && !lines[top - 1].empty(); --top) a_table = a_table || dashes(lines[top - 1]);
      if (!a_table) table.title = lines[top];
    }
    table.rows.push_back(cells(lines[i]));
    for (size_t j = i + 2; j < lines.size() && !lines[j].empty() && lines[j][0] != '('; ++j)  // "(...)": a note under it
      if (!dashes(lines[j])) table.rows.push_back(cells(lines[j]));
    tables.push_back(table);
  }
  return tables;
}

std::vector<std::vector<std::vector<std::string>>> text_tables(const std::string& text) {
  std::vector<std::vector<std::vector<std::string>>> out;
  for (const TextTable& t : titled_tables(text)) out.push_back(t.rows);
  return out;
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

// --- The views as specification (issue 43): figures the test works out
// itself from the fixture's raw JSON lines (not the typed readers the
// views use), each looked for where a reader finds it in the view. These
// are the primary assertions; the expected/ files above only catch a
// change nobody meant (wording, layout), and are read in review.

// The last record of each cell (its settings, "cell"), as the JSON line
// says it: a later line of a cell replaces an earlier one in its place, as
// a resumed run's does; then in the order of the cells' indexes.
std::vector<nlohmann::json> raw_latest(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line);
    auto same = std::find_if(out.begin(), out.end(), [&](const nlohmann::json& o) { return o["cell"] == j["cell"]; });
    if (same != out.end()) *same = j;
    else out.push_back(j);
  }
  std::stable_sort(out.begin(), out.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.value("cell_index", 0) < b.value("cell_index", 0);
  });
  return out;
}

std::string grouped(uint64_t n) {  // 7178 -> "7,178"
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// The text with every run of blanks and line breaks made one space, so a
// sentence wrapped to the terminal's width is found whole.
std::string squeezed(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool blank = c == ' ' || c == '\n';
    if (blank && (out.empty() || out.back() == ' ')) continue;
    out += blank ? ' ' : c;
  }
  return out;
}

// What the test expects to read in a table: the row whose first cells are
// `key`, under the column headed `column`. Each must be found once.
struct Expected {
  std::vector<std::string> key;
  std::string column, value, table_title;  // title: the start of the table's title, "" for any
};

void expect_in_tables(const std::string& text, const std::vector<Expected>& expected) {
  auto tables = titled_tables(text);
  for (const Expected& e : expected) {
    int found = 0;
    for (const TextTable& t : tables) {
      if (t.title.rfind(e.table_title, 0) != 0) continue;
      const auto& header = t.rows[0];
      auto col = std::find(header.begin(), header.end(), e.column);
      if (col == header.end()) continue;
      for (size_t r = 1; r < t.rows.size(); ++r) {
        const auto& row = t.rows[r];
        // Empty cells are dropped (text_tables): a row may end early, never hold its columns elsewhere.
        size_t at = col - header.begin();
        if (row.size() <= at || row.size() < e.key.size() || !std::equal(e.key.begin(), e.key.end(), row.begin()))
          continue;
        ++found;
        EXPECT_EQ(row[at], e.value)
            << "row " << ::testing::PrintToString(e.key) << ", column '" << e.column << "' of the table '" << t.title
            << "'";
      }
    }
    EXPECT_EQ(found, 1) << "row " << ::testing::PrintToString(e.key) << " under '" << e.column << "' in a table titled '"
                        << e.table_title << "...' found " << found << " times";
  }
}

// results.csv, as csv_view.h specifies it: one row per latest record, in
// the cells' order, each column a dotted path into the record's JSON and
// the value there (empty where the record has none, or an object whose
// fields have their own columns; an array as JSON text), whatever the
// typed readers make of it.
void expect_csv_is_the_records(const std::string& csv, const std::vector<nlohmann::json>& records) {
  auto rows = csv_rows(csv);
  ASSERT_EQ(rows.size(), records.size() + 1) << "a header and one row per latest record";
  const auto& header = rows[0];
  auto label_col = std::find(header.begin(), header.end(), "label") - header.begin();
  ASSERT_LT(label_col, static_cast<long>(header.size()));
  size_t compared = 0;
  for (size_t r = 1; r < rows.size(); ++r) {
    ASSERT_EQ(rows[r].size(), header.size()) << "row " << r;
    const nlohmann::json* rec = &records[r - 1];
    ASSERT_EQ(rows[r][label_col], (*rec)["label"]) << "row " << r;
    for (size_t c = 0; c < header.size(); ++c) {
      const nlohmann::json* at = &*rec;
      std::istringstream path(header[c]);
      for (std::string key; at && std::getline(path, key, '.');)
        at = at->is_object() && at->contains(key) ? &(*at)[key] : nullptr;
      std::string where = header[c] + " of " + rows[r][label_col];
      const std::string& cell = rows[r][c];
      // An object where another record has a value: its fields have their own columns.
      if (!at || at->is_null() || at->is_object()) EXPECT_EQ(cell, "") << where;
      else if (at->is_number()) EXPECT_DOUBLE_EQ(std::stod(cell), at->get<double>()) << where;
      else if (at->is_string()) EXPECT_EQ(cell, at->get<std::string>()) << where;
      else if (at->is_boolean()) EXPECT_EQ(cell, at->get<bool>() ? "true" : "false") << where;
      else EXPECT_EQ(nlohmann::json::parse(cell), *at) << where;
      ++compared;
    }
  }
  EXPECT_GE(compared, records.size() * 40) << "every record's fields compared";
  // Every value of a record has its column, but the bulky detail csv_view.h
  // leaves in results.jsonl: the cell's settings, the link's counters, the
  // fault's spec, the trial means.
  const std::vector<std::string> left_out = {"cell", "faults.counters_before", "faults.counters_after", "faults.spec",
                                             "trial_means_us"};
  std::function<void(const nlohmann::json&, const std::string&)> leaves = [&](const nlohmann::json& j,
                                                                             const std::string& path) {
    for (const std::string& l : left_out)
      if (path == l) return;
    if (j.is_object() && !j.empty()) {
      for (auto it = j.begin(); it != j.end(); ++it) leaves(it.value(), path.empty() ? it.key() : path + "." + it.key());
    } else if (!j.is_object()) {
      EXPECT_NE(std::find(header.begin(), header.end(), path), header.end()) << path << " of " << records.size()
                                                                            << " records has no column";
    }
  };
  for (const nlohmann::json& r : records) leaves(r, "");
}

// 95% upper ends for "none seen": of n trials, Clopper-Pearson's exact
// 1 - 0.025^(1/n); of n calls, Wilson's z^2 / (n + z^2).
double clopper_pearson_upper_of_none(double n) { return 1 - std::pow(0.025, 1 / n); }
double wilson_upper_of_none(double n) {
  const double z = 1.959963985;
  return z * z / (n + z * z);
}

// A fixture's records read twice (raw, and as the views read them) and
// the text report the views make of them.
struct FixtureReport {
  std::vector<nlohmann::json> raw;
  std::vector<CellRecord> records;
  std::string text;
};

FixtureReport fixture_report(const std::string& experiment_name) {
  std::string records_file = kFixtures + experiment_name + "/results.jsonl";
  FixtureReport out{raw_latest(records_file), latest_per_cell(read_cell_records(records_file, nullptr)), ""};
  ReportOptions options;
  options.data_dir = RPCLAB_SOURCE_DIR "/docs/data";
  out.text = find_experiment(experiment_name).report(out.records, options);
  return out;
}

// Dependability: each cell's calls by class, as the records count them;
// what a remedy's zero cost (calls told failed although they ran); the
// bounds a clean cell still allows, worked out from its trials and calls.
TEST(FixtureViews, DependabilityViewsSayTheRecordsFigures) {
  FixtureReport fixture = fixture_report("dependability");
  const auto& raw = fixture.raw;
  const auto& records = fixture.records;
  const std::string& text = fixture.text;
  std::string prose = squeezed(text);

  std::vector<Expected> expected;
  std::map<uint64_t, uint64_t> fewest_clean_calls;  // trials -> the fewest calls of a clean cell with that many
  for (const nlohmann::json& r : raw) {
    std::string label = r["label"];
    if (r["status"] != "ok") {
      EXPECT_NE(prose.find("skipped " + label + ": " + r["reason"].get<std::string>()), std::string::npos)
          << label << ": skipped, with its reason, under 'Cells not measured'";
      continue;
    }
    const nlohmann::json& k = r["classes"];
    uint64_t calls = r["calls"], silent = k["silent_loss"].get<uint64_t>() + k["silent_duplicates"].get<uint64_t>();
    uint64_t dup = k["duplicate_calls"], dup_told_failure = dup - k["silent_duplicates"].get<uint64_t>();
    uint64_t told_failed = k["indeterminate"].get<uint64_t>() + dup_told_failure;
    uint64_t trials = r["trials_ok"];
    auto row = [&](const std::string& column, const std::string& value) {
      expected.push_back({{label}, column, value, ""});
    };
    row("trials", std::to_string(trials) + "/" + std::to_string(r["trials"].get<uint64_t>()));
    row("calls", grouped(calls));
    row("correct", grouped(k["correct"]));
    row("silent loss", grouped(k["silent_loss"]));
    row("dup calls", grouped(dup));
    row("extra exec", grouped(k["extra_executions"]));
    row("silent dup", grouped(k["silent_duplicates"]));
    row("indeterm.", grouped(k["indeterminate"]));
    row("clean fail", grouped(k["clean_failure"]));
    row("Levy mism.", grouped(r["levy_mismatches"]));
    row("silent/M", grouped(std::llround(1e6 * silent / calls)));
    row("calls/s", std::to_string(std::llround(calls / r["client_wall_s"].get<double>())));
    // A cell of timed events: its calls in the failures table's five classes.
    if (label.find(" every ") != std::string::npos) {
      std::string five = grouped(k["silent_loss"]) + " / " + grouped(k["silent_duplicates"]) + " / " +
                         grouped(dup_told_failure) + " / " + grouped(k["indeterminate"]) + " / " +
                         grouped(k["clean_failure"]);
      EXPECT_NE(prose.find(five), std::string::npos) << label << ": " << five << " in 'Failures TCP cannot hide'";
    }
    if (told_failed) {
      std::string price = grouped(told_failed) + " of " + grouped(calls) + " calls (" +
                          std::to_string(std::llround(100.0 * told_failed / calls)) + "%) reported failed although they ran";
      EXPECT_NE(prose.find(price), std::string::npos) << label << ": the verdict says '" << price << "'";
    } else if (silent == 0 && dup == 0) {
      auto& fewest = fewest_clean_calls[trials];
      fewest = fewest ? std::min(fewest, calls) : calls;
    }
    if (silent == 0) {
      std::string over = trials == 1 ? "0 in 1 trial" : "0 in all " + std::to_string(trials) + " trials";
      over += " (<=" + std::to_string(std::llround(100 * clopper_pearson_upper_of_none(trials))) + "%)";
      EXPECT_NE(prose.find(over), std::string::npos) << label << ": " << over << " in the over-trials table";
    }
  }
  ASSERT_EQ(fewest_clean_calls.size(), 2u) << "the fixture's clean cells: 3 trials and 1 trial";
  for (const auto& [trials, calls] : fewest_clean_calls) {
    std::string bound = "up to " + std::to_string(std::llround(100 * clopper_pearson_upper_of_none(trials))) +
                        "% of trials (Clopper-Pearson), and a rate up to " +
                        grouped(std::llround(1e6 * wilson_upper_of_none(calls))) + " per million calls";
    EXPECT_NE(prose.find(bound), std::string::npos) << "the verdict's clean cells of " << trials << " trials: " << bound;
  }
  expect_in_tables(text, expected);
  expect_csv_is_the_records(records_to_csv(records), raw);
}

// Speed: each echo cell's p50, p90 and calls/s in its latency table, and
// its p50 over its raw floor's (the same topology, connection, clients
// and size); Levy's seconds per 100 calls (the mean latency x 100); the
// raw floors over sockperf's.
TEST(FixtureViews, SpeedViewsSayTheRecordsFigures) {
  FixtureReport fixture = fixture_report("speed");
  const auto& raw = fixture.raw;
  const auto& records = fixture.records;
  const std::string& text = fixture.text;

  auto size_words = [](uint64_t size) {
    return size % 1024 == 0 ? std::to_string(size / 1024) + "K" : std::to_string(size);
  };
  auto same_cell_of = [&](const nlohmann::json& r, const std::string& transport) -> const nlohmann::json* {
    for (const nlohmann::json& o : raw)
      if (o["transport"] == transport && o["op"] == r["op"] && o["topology"] == r["topology"] &&
          o["connect"] == r["connect"] && o["clients"] == r["clients"] && o["size"] == r["size"])
        return &o;
    return nullptr;
  };
  std::vector<Expected> expected;
  for (const nlohmann::json& r : raw) {
    if (r["status"] != "ok" || r["op"] != "echo") continue;
    std::string transport = r["transport"], topology = r["topology"], connect = r["connect"];
    std::string size = size_words(r["size"]);
    std::string family = transport.substr(transport.find('-'));  // "-udp": the raw floor is raw-udp
    if (transport.rfind("sockperf", 0) == 0) {
      const nlohmann::json* floor = same_cell_of(r, "raw" + family);
      ASSERT_TRUE(floor) << r["label"];
      expected.push_back({{topology, size}, "raw" + family + "/" + transport,
                          fixed((*floor)["p50_us"].get<double>() / r["p50_us"].get<double>(), 2), "Calibration"});
      continue;
    }
    std::string title = "Per-call latency, " + connect + " connection, " + topology;
    std::vector<std::string> key = {transport, std::to_string(r["clients"].get<int>()), size};
    expected.push_back({key, "p50 us", fixed(r["p50_us"], 1), title});
    expected.push_back({key, "p90 us", fixed(r["p90_us"], 1), title});
    expected.push_back({key, "calls/s", std::to_string(std::llround(r["calls_per_s"].get<double>())), title});
    std::string ratio = "-";
    if (transport.rfind("raw-", 0) != 0) {
      const nlohmann::json* floor = same_cell_of(r, "raw" + family);
      ASSERT_TRUE(floor) << r["label"];
      ratio = fixed(r["p50_us"].get<double>() / (*floor)["p50_us"].get<double>(), 2);
    }
    expected.push_back({key, "x floor", ratio, title});
    if (connect == "per-call" && r["clients"] == 1 && r["size"] == 12)
      expected.push_back({{transport}, topology == "loopback" ? "same machine s/100" : "other machine s/100",
                          fixed(r["mean_us"].get<double>() * 100 / 1e6, 4), "Levy's timing table"});
  }
  EXPECT_GE(expected.size(), 40u);
  expect_in_tables(text, expected);
  expect_csv_is_the_records(records_to_csv(records), raw);
}

}  // namespace
}  // namespace rpclab::harness
