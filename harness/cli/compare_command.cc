#include "harness/cli/compare_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/cli_support.h"
#include "harness/report/compare_page.h"
#include "harness/record/records_file.h"
#include "harness/record/run_metadata.h"
#include "harness/report/run_compare.h"
#include "harness/cli/experiments.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

// A figure asked about (--figures) could not have been shown to differ
// (too few trials, a cell that did not run), or none was tested: a gate
// that read 0 would pass without a test. 3 is kExitSetup elsewhere;
// compare has nothing to set up, and its page not written is 5.
constexpr int kExitCannotTell = 3;
constexpr int kExitPageNotWritten = 5;

struct Flags {
  std::string run_a, run_b, format = "text", html_file;
  double alpha = 0.01;
  bool all = false;
  std::vector<std::string> figures = default_asked_figures();
};

struct Run {
  RunMetadata metadata;
  std::vector<CellRecord> records;
};

// Throws std::invalid_argument saying what is wrong and what to give, and
// RecordVersionError for records newer than this build reads.
Run load_run(const std::string& dir) {
  if (!std::filesystem::is_directory(dir))
    throw std::invalid_argument(dir + (std::filesystem::exists(dir) ? " is not a folder" : " does not exist") +
                                ": give a run folder, e.g. results/latest");
  std::optional<RunMetadata> metadata = read_run_metadata(dir + "/metadata.json");
  if (!metadata || !records_present(dir + "/results.jsonl"))
    throw std::invalid_argument(dir + " is not a run folder (it needs metadata.json and results.jsonl, or a shipped run's results.jsonl.gz): give the "
                                      "folder a run wrote, e.g. results/latest");
  Run run{*metadata, {}};
  std::vector<std::string> warnings;
  run.records = latest_per_cell(read_cell_records(dir + "/results.jsonl", &warnings));
  for (const std::string& w : warnings) std::fprintf(stderr, "rpclab compare: %s\n", w.c_str());
  return run;
}

std::string text(const RunComparison& c, const Flags& f) {
  if (!f.all) return fmt::format("A: {}\nB: {}\n\n", f.run_a, f.run_b) + compare_brief(c) + compare_summary(c) + "\n";
  TextTable t(compare_header());
  for (auto& r : compare_rows(c)) t.add(r);
  std::string out = fmt::format("A: {}\nB: {}\n\n", f.run_a, f.run_b) + (t.empty() ? "" : t.render() + "\n");
  for (const std::string& l : c.only_a) out += "only in A: " + l + "\n";
  for (const std::string& l : c.only_b) out += "only in B: " + l + "\n";
  if (!c.noise_note.empty()) out += c.noise_note + "\n";
  return out + compare_summary(c) + "\n";
}

// --html FILE is written when it is new or a page compare wrote before;
// anything else there is left alone (a usage error, nothing compared).
std::string html_target_problem(const std::string& path) {
  // A FIFO or a device (/dev/stdout) is written in place: nothing to lose.
  if (path.empty() || path == "-" || !std::filesystem::is_regular_file(path)) return "";
  std::ifstream in(path);
  std::string start(4096, '\0');
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  start.resize(static_cast<size_t>(in.gcount()));
  if (start.find(kComparePageMark) != std::string::npos) return "";
  return path + " exists and is not a page rpclab compare wrote: left alone (give a new file, or remove it)";
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
    if (std::string problem = html_target_problem(f.html_file); !problem.empty()) throw std::invalid_argument(problem);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab compare: %s\n", e.what());
    return kExitUsage;
  }
  // The experiment's noise rule marks the figures its tables mark.
  NoiseRule noise;
  if (a.metadata.experiment)
    for (const Experiment& e : experiments())
      if (e.name == *a.metadata.experiment) noise = e.noise;
  RunComparison c = compare_runs(a.records, b.records, f.alpha, noise);
  c.asked = f.figures;
  // With --html -, standard output is the page; the summary goes to stderr.
  bool page_on_stdout = f.html_file == "-";
  if (page_on_stdout) std::fprintf(stderr, "%s\n", compare_summary(c).c_str());
  else if (f.format == "json") std::printf("%s\n", c.to_json().dump().c_str());
  else std::printf("%s", text(c, f).c_str());
  if (!f.html_file.empty()) {
    try {
      std::string html = compare_page(c, {f.run_a, a.metadata}, {f.run_b, b.metadata});
      if (page_on_stdout) std::fwrite(html.data(), 1, html.size(), stdout);
      else write_file_atomically(f.html_file, html);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rpclab compare: --html %s: %s\n", f.html_file.c_str(), e.what());
      return kExitPageNotWritten;
    }
  }
  if (c.asked_differs()) return kExitFailed;
  return c.cannot_tell() ? kExitCannotTell : kExitOk;
}

}  // namespace

std::function<int()> add_compare_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "two run folders cell by cell, matched on their settings; exit 0 when no figure differs, 1 when one "
      "does, 3 when a figure asked about (--figures) could not be tested: cannot tell");
  cmd->add_option("run_a", f->run_a, "the first run folder (A)")->required();
  cmd->add_option("run_b", f->run_b, "the second run folder (B)")->required();
  cmd->add_option("--format", f->format, "text (aligned table) or json (one object on stdout)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--html", f->html_file,
                  "also write the comparison as an HTML page to FILE (A and B side by side, a plot per figure; "
                  "- = standard output, the summary then on stderr); an existing FILE only if compare wrote it")
      ->check(writable_file());
  std::string keys, asked;
  for (const std::string& k : compare_figure_keys()) keys += (keys.empty() ? "" : ", ") + k;
  for (const std::string& k : default_asked_figures()) asked += (asked.empty() ? "" : ",") + k;
  cmd->add_option("--figures", f->figures,
                  "the figures a gate is about: exit 1 when one differs, else 3 (cannot tell) when one cannot be tested "
                  "in a matched cell; the others are shown and decide nothing. "
                  "Any of: " + keys)
      ->delimiter(',')
      ->check(CLI::IsMember(compare_figure_keys()))
      ->default_str(asked);
  cmd->add_flag("--all", f->all, "print every figure of every matched cell and name the unmatched cells "
                                 "(by default: what differs and a count of the rest)");
  cmd->add_option("--alpha", f->alpha, "significance level of the tests (default 0.01)")->check(in_range(1e-9, 0.5));
  return [f] { return run(*f); };
}

}  // namespace rpclab::harness
