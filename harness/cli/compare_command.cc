#include "harness/cli/compare_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/cli_support.h"
#include "harness/report/html_writer.h"
#include "harness/record/records_file.h"
#include "harness/record/run_metadata.h"
#include "harness/report/run_compare.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

// No matched cell could have been shown to differ (too few trials, or
// none ran): a gate that reads 0 would pass without a test.
constexpr int kExitNothingTestable = 4;

struct Flags {
  std::string run_a, run_b, format = "text", html_file;
  double alpha = 0.01;
};

struct Run {
  RunMetadata metadata;
  std::vector<CellRecord> records;
};

// Throws std::invalid_argument saying what is wrong and what to give, and
// RecordVersionError for records newer than this build reads.
Run load_run(const std::string& dir) {
  if (!std::filesystem::is_directory(dir))
    throw std::invalid_argument(dir + ": no such folder (give a run folder, e.g. results/latest)");
  std::optional<RunMetadata> metadata = read_run_metadata(dir + "/metadata.json");
  if (!metadata || !std::filesystem::is_regular_file(dir + "/results.jsonl"))
    throw std::invalid_argument(dir + " is not a run folder (it needs metadata.json and results.jsonl): give the "
                                      "folder a run wrote, e.g. results/latest");
  Run run{*metadata, {}};
  std::vector<std::string> warnings;
  run.records = latest_per_cell(read_cell_records(dir + "/results.jsonl", &warnings));
  for (const std::string& w : warnings) std::fprintf(stderr, "rpclab compare: %s\n", w.c_str());
  return run;
}

// Whether the pair differs at alpha. A cell whose trials are too few for
// any result to reach alpha says so, with the smallest p they allow
// (docs/running.md, "mind the power"): "no" there would claim a test.
std::string verdict_of(const CellComparison& m, double alpha) {
  if (!m.tested) return "untested";
  if (!m.testable(alpha))
    return fmt::format("untestable with {} vs {} trials (smallest p = {:.3g})", m.trials_a, m.trials_b,
                       *m.smallest_p);
  return m.differs ? "DIFFERS" : fmt::format("no (p >= {})", alpha);
}

std::string change_words(const CellComparison& m) {
  if (auto pct = m.change_pct()) return fmt::format("{:+.1f}%", *pct);
  if (m.a_value && m.b_value) return *m.b_value == 0 ? "=" : "from 0";
  return "-";
}

std::vector<std::vector<std::string>> rows(const RunComparison& c) {
  std::vector<std::vector<std::string>> out;
  for (const CellComparison& m : c.matched)
    out.push_back({m.label, m.figure, m.a, m.b, change_words(m), m.test, m.tested ? fmt::format("{:.3g}", m.p) : "-",
                   verdict_of(m, c.alpha)});
  return out;
}

const std::vector<std::string> kHeader = {"cell", "figure", "A", "B", "B vs A", "test", "p", "differs"};

std::string verdict(const RunComparison& c) {
  std::set<size_t> differ;
  size_t figures = 0;
  for (const CellComparison& m : c.matched) {
    if (m.differs) differ.insert(m.cell);
    figures += m.tested;
  }
  std::string out = fmt::format("{} cells matched ({} figures tested), {} differ at alpha {}", c.cells, figures,
                                differ.size(), c.alpha);
  if (size_t u = c.untestable())
    out += fmt::format(", {} figures untestable (too few trials for any p below {}: run more with --trials)", u,
                       c.alpha);
  out += fmt::format("; {} only in A, {} only in B", c.only_a.size(), c.only_b.size());
  if (c.nothing_testable()) out += ". Nothing could be tested (exit 4)";
  return out;
}

std::string text(const RunComparison& c, const Flags& f) {
  TextTable t(kHeader);
  for (auto& r : rows(c)) t.add(r);
  std::string out = fmt::format("A: {}\nB: {}\n\n", f.run_a, f.run_b) + (t.empty() ? "" : t.render() + "\n");
  for (const std::string& l : c.only_a) out += "only in A: " + l + "\n";
  for (const std::string& l : c.only_b) out += "only in B: " + l + "\n";
  return out + verdict(c) + "\n";
}

std::string page(const RunComparison& c, const Flags& f, const Run& a, const Run& b) {
  auto name = [](const std::string& dir, const Run& r) {
    std::string title = r.metadata.title.value_or("");
    return dir + " (run " + r.metadata.run_id.value_or("?") + (title.empty() ? "" : ", " + title) + ")";
  };
  std::string body = html::heading(1, "rpclab compare") + html::paragraph("A: " + name(f.run_a, a)) +
                     html::paragraph("B: " + name(f.run_b, b)) + html::paragraph(verdict(c)) +
                     html::table(kHeader, rows(c));
  std::vector<std::vector<std::string>> unmatched;
  for (const std::string& l : c.only_a) unmatched.push_back({"A", l});
  for (const std::string& l : c.only_b) unmatched.push_back({"B", l});
  if (!unmatched.empty()) body += html::heading(2, "Cells only one run has") + html::table({"run", "cell"}, unmatched);
  body += html::paragraph("Tests: docs/running.md, \"Comparing two runs\".", "note");
  return html::page("rpclab compare", body);
}

int run(const Flags& f) {
  Run a, b;
  try {
    a = load_run(f.run_a);
    b = load_run(f.run_b);
    if (a.metadata.experiment.value_or("") != b.metadata.experiment.value_or(""))
      throw std::invalid_argument(fmt::format("{} is a {} run and {} a {} run: compare runs of one experiment", f.run_a,
                                              a.metadata.experiment.value_or("?"), f.run_b,
                                              b.metadata.experiment.value_or("?")));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab compare: %s\n", e.what());
    return kExitUsage;
  }
  RunComparison c = compare_runs(a.records, b.records, f.alpha);
  if (f.format == "json") std::printf("%s\n", c.to_json().dump().c_str());
  else std::printf("%s", text(c, f).c_str());
  if (!f.html_file.empty()) {
    try {
      write_file_atomically(f.html_file, page(c, f, a, b));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rpclab compare: --html %s: %s\n", f.html_file.c_str(), e.what());
      return kExitSetup;
    }
  }
  if (c.any_differs()) return kExitFailed;
  return c.nothing_testable() ? kExitNothingTestable : kExitOk;
}

}  // namespace

std::function<int()> add_compare_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "two run folders cell by cell, matched on their settings; exit 0 when no cell differs, 1 when one does, "
      "4 when no matched cell could be tested (too few trials)");
  cmd->add_option("run_a", f->run_a, "the first run folder (A)")->required();
  cmd->add_option("run_b", f->run_b, "the second run folder (B)")->required();
  cmd->add_option("--format", f->format, "text (aligned table) or json (one object on stdout)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--html", f->html_file, "also write the comparison as an HTML page to FILE")->check(writable_file());
  cmd->add_option("--alpha", f->alpha, "significance level of the tests (default 0.01)")->check(in_range(1e-9, 0.5));
  return [f] { return run(*f); };
}

}  // namespace rpclab::harness
