#include "harness/cli/report_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>

#include "common/cli_support.h"
#include "harness/cli/experiments.h"
#include "harness/run/experiment_run.h"
#include "harness/report/html_report.h"
#include "harness/run/provenance.h"
#include "harness/record/records_file.h"
#include "harness/record/run_metadata.h"

namespace rpclab::harness {
namespace {

struct Flags {
  std::string run_dir;
  bool markdown = false;
  std::vector<std::string> tables;
  std::string if_preset;
  std::string views_dir;
};

// What the tables came from, in words a reader can check: the run's id,
// when it started, the command, and how many cells and trials.
std::string markdown_heading(const RunMetadata& meta, const std::vector<CellRecord>& records) {
  size_t trials = 0;
  for (const CellRecord& r : records) trials += r.trials.value_or(1);
  std::string date = meta.started_at.value_or("?").substr(0, 10);
  return fmt::format("Run `{}` of {} (`{}`; {} cells, {} trials).\n\n", meta.run_id.value_or("?"), date,
                     meta.command_line.value_or("?"), records.size(), trials);
}

// report.html and its plots again; the gnuplot lines are not added to the
// run's commands.log, which records the run.
int rerender_html(const Experiment& experiment, const std::string& run_dir, const std::string& views_dir) {
  process::CommandLog log;
  std::vector<std::string> notes;
  if (views_dir.empty() && !std::filesystem::exists(run_dir + "/results.jsonl")) {
    std::fprintf(stderr, "rpclab report: %s is a shipped run (results.jsonl.gz): report.html and the plots are not "
                 "written into it; give --views DIR to have them\n", run_dir.c_str());
    return kExitOk;
  }
  try {
    if (!views_dir.empty()) std::filesystem::create_directories(views_dir);
    HtmlReportFiles files = write_html_report(experiment, run_dir, log, &notes, views_dir);
    for (const std::string& n : notes) std::fprintf(stderr, "rpclab report: %s\n", n.c_str());
    std::fprintf(stderr, "Report: %s\n", files.html.c_str());
    return kExitOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpclab report: %s\n", e.what());
    return kExitSetup;
  }
}

int run(const Flags& f) {
  if (!std::filesystem::exists(f.run_dir)) {
    std::fprintf(stderr, "rpclab report: %s does not exist: give the folder a run wrote, e.g. results/latest\n",
                 f.run_dir.c_str());
    return kExitUsage;
  }
  std::optional<RunMetadata> meta = read_run_metadata(f.run_dir + "/metadata.json");
  if (meta && meta->experiment && !any_trial_finished(f.run_dir)) {
    // A run stopped before its first trial ended: a run folder, with nothing in it to report yet.
    std::fprintf(stderr, "rpclab report: %s: no trial finished in this run, so there is nothing to report; "
                 "--resume %s runs its trials\n", f.run_dir.c_str(), f.run_dir.c_str());
    return kExitOk;
  }
  if (!meta || !records_present(f.run_dir + "/results.jsonl")) {
    std::fprintf(stderr, "rpclab report: %s is not a run folder (it needs metadata.json and results.jsonl, or a shipped run's results.jsonl.gz): give "
                 "the folder a run wrote, e.g. results/latest\n", f.run_dir.c_str());
    return kExitUsage;
  }
  if (!f.if_preset.empty() && meta->preset.value_or("") != f.if_preset) {
    std::fprintf(stderr, "rpclab report: %s is a run of preset %s, not %s: nothing printed\n", f.run_dir.c_str(),
                 meta->preset.value_or("?").c_str(), f.if_preset.c_str());
    return kExitOk;
  }
  const Experiment* experiment = nullptr;
  try {
    experiment = &find_experiment(meta->experiment.value_or(""));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "rpclab report: %s/metadata.json: %s\n", f.run_dir.c_str(), e.what());
    return kExitUsage;
  }
  std::vector<std::string> ids = experiment->table_ids();
  for (const std::string& t : f.tables)
    if (std::find(ids.begin(), ids.end(), t) == ids.end()) {
      std::string known;
      for (const std::string& k : ids) known += (known.empty() ? "" : ", ") + k;
      std::fprintf(stderr, "rpclab report: --table %s: %s reports have %s\n", t.c_str(), experiment->name.c_str(),
                   known.empty() ? "no tables to choose from" : ("the tables " + known).c_str());
      return kExitUsage;
    }
  std::vector<std::string> warnings;
  std::vector<CellRecord> records;
  try {
    records = latest_per_cell(read_cell_records(f.run_dir + "/results.jsonl", &warnings));
  } catch (const RecordVersionError& e) {
    std::fprintf(stderr, "rpclab report: %s\n", e.what());
    return kExitUsage;
  }
  for (const std::string& w : warnings) std::fprintf(stderr, "rpclab report: %s\n", w.c_str());
  ReportOptions options;
  options.data_dir = reference_data_dir();
  options.markdown = f.markdown;
  options.tables = f.tables;
  std::string text = experiment->report(records, options);
  if (!f.markdown) text = with_title(meta->title.value_or(""), text);
  std::printf("%s%s", f.markdown ? markdown_heading(*meta, records).c_str() : "", text.c_str());
  if (f.markdown || !f.tables.empty()) return kExitOk;  // for docs: the tables alone
  return rerender_html(*experiment, f.run_dir, f.views_dir);
}

// "dependability: levy-load, ...; speed: levy, ...", from the experiments'
// own lists, so the help cannot fall behind them.
std::string table_ids_by_experiment() {
  std::string out;
  for (const Experiment& e : experiments())
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", e.name, fmt::join(e.table_ids(), ", "));
  return out;
}

}  // namespace

std::function<int()> add_report_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("report", "print a run folder's tables again and re-render its report.html and plots from results.jsonl (--markdown: "
                                    "the tables alone, for docs/)");
  cmd->add_option("run", f->run_dir, "the run folder, e.g. results/latest")->required();
  cmd->add_flag("--markdown", f->markdown, "Markdown tables headed by the run's id, date and command");
  cmd->add_option("--table", f->tables, "only these tables (" + table_ids_by_experiment() + ")")->delimiter(',');
  cmd->add_option("--views", f->views_dir, "write report.html and the plots into this folder (made if absent) "
                  "instead of the run folder: for a run shipped with the docs (docs/results/runs/)");
  cmd->add_option("--if-preset", f->if_preset, "print nothing (exit 0) unless the run is of this preset: for "
                  "tools/docs-tables.sh");
  return [f] { return run(*f); };
}

}  // namespace rpclab::harness
