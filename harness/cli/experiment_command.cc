#include "harness/cli/experiment_command.h"

#include <unistd.h>

#include <fmt/format.h>

#include <memory>
#include <vector>

#include "common/atomic_file.h"
#include "common/cli_support.h"
#include "common/signal_watcher.h"
#include "harness/remote/remote_flags.h"
#include "harness/remote/remote_placement.h"
#include "harness/report/csv_view.h"
#include "harness/report/html_report.h"
#include "harness/run/experiment_run.h"
#include "harness/placement/local_placement.h"
#include "harness/run/output_flags.h"
#include "harness/run/provenance.h"
#include "harness/record/records_file.h"
#include "harness/run/result_record.h"
#include "harness/run/run_cells.h"
#include "harness/run/time_estimate.h"
#include "netem/topology/capabilities.h"

namespace rpclab::harness {
namespace {

// The flags every run takes, whatever its experiment.
struct CommonFlags {
  RunOptions run;
  RemoteOptions remote;
  bool dry_run = false;
};

void add_common_flags(CLI::App* cmd, CommonFlags& f) {
  cmd->add_option("--cell-time-limit", f.run.cell_time_limit_s, "seconds before a trial's clients are stopped")
      ->check(in_range(10, 24 * 3600))->capture_default_str();
  cmd->add_option("--out", f.run.out_dir, "results folder (default results/<timestamp>)");
  cmd->add_option("--resume", f.run.resume_dir, "continue the run in this folder, skipping finished trials")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--results-root", f.run.results_root, "where run folders and 'latest' go")->capture_default_str();
  cmd->add_flag("--dry-run", f.dry_run, "list the cells and exit");
  add_output_flags(cmd, f.run);
  add_remote_flags(cmd, f.remote);
}

// The experiment's name in every message, and a usage error's exit code.
struct Say {
  const std::string& name;
  int usage(const std::string& why) const {
    std::fprintf(stderr, "rpclab %s: %s\n", name.c_str(), why.c_str());
    return kExitUsage;
  }
};

// A cell that lasts a fixed time (timed events) must end before the time
// limit stops its clients.
std::string duration_refusal(const std::vector<CellConfig>& cells, int cell_time_limit_s) {
  for (const CellConfig& cell : cells)
    if (cell.duration_ms && *cell.duration_ms >= int64_t{cell_time_limit_s} * 1000)
      return fmt::format("{} lasts {:.1f} s, and --cell-time-limit stops a cell's clients at {} s: give a shorter "
                         "--duration or a longer --cell-time-limit",
                         cell.label(), static_cast<double>(*cell.duration_ms) / 1000, cell_time_limit_s);
  return "";
}

size_t trials_in(const std::vector<CellConfig>& cells) {
  size_t trials = 0;
  for (const CellConfig& c : cells) trials += static_cast<size_t>(std::max(1, c.trials));
  return trials;
}

// The views of the finished run. Returns report.html's path ("" when it
// could not be written: the notes say why).
std::string print_views(const Experiment& experiment, RunFolder& folder, const RunOptions& run,
                        const WallTime& wall_time) {
  if (!any_trial_finished(folder.dir())) {
    // Stopped before the first trial ended: no results.jsonl to name, no report to write.
    std::fprintf(human_out(run), "\nNo trial finished, so there is nothing to report: %s holds metadata.json and "
                 "commands.log\n", folder.dir().c_str());
    return "";
  }
  std::vector<std::string> warnings;
  std::vector<CellRecord> records = latest_per_cell(read_cell_records(folder.results_path(), &warnings));
  ReportOptions options;
  options.data_dir = reference_data_dir();
  std::string every = experiment.report(records, options);
  options.brief = true;
  std::string terminal = experiment.report(records, options);
  // The run's time beside its tables: its plan said how long it would take.
  std::string time = "\nThe trials " + wall_time_words(wall_time) + ".\n";
  every += time;
  terminal += time;
  write_file_atomically(folder.path("report.txt"), with_title(run.title, every));
  write_file_atomically(folder.path("results.csv"), records_to_csv(records, experiment.csv_columns));
  std::vector<std::string> notes;
  HtmlReportFiles views = html_report_at_end(experiment, folder.dir(), folder.log(), &notes);
  std::FILE* out = human_out(run);
  std::fprintf(out, "\n%s", with_title(run.title, terminal).c_str());
  for (const std::string& n : notes) std::fprintf(out, "%s\n", n.c_str());
  bool all_shown = terminal == every;
  if (!all_shown) std::fprintf(out, "\nEvery table: %s/report.txt\n", folder.dir().c_str());
  std::fprintf(out, "%sResults: %s/results.jsonl (also trials.jsonl, results.csv, %scommands.log",
               all_shown ? "\n" : "", folder.dir().c_str(), all_shown ? "report.txt, " : "");
  for (const std::string& p : views.pngs) std::fprintf(out, ", %s", p.substr(folder.dir().size() + 1).c_str());
  std::fprintf(out, ")\n");
  // The answer last, where the person looks when the run ends.
  options.brief = false;
  if (std::string verdict = experiment.headline(records, options); !verdict.empty())
    std::fprintf(out, "\n%s", verdict.c_str());
  return views.html;
}

int run(const Experiment& experiment, ExperimentFlags& own, CommonFlags& f) {
  Say say{experiment.name};
  PlanContext context{::geteuid() == 0, !f.remote.server_host.empty(), !f.remote.client_host.empty()};
  Plan plan;
  try {
    plan = own.plan(context);
  } catch (const std::exception& e) {  // CLI::ValidationError, std::invalid_argument: flags that make no run
    return say.usage(e.what());
  }
  const std::vector<CellConfig>& cells = plan.cells;
  if (std::string why = duration_refusal(cells, f.run.cell_time_limit_s); !why.empty()) return say.usage(why);
  if (std::string why = remote_refusal(f.remote, cells); !why.empty()) return say.usage(why);
  for (const std::string& note : plan.notes) std::fprintf(stderr, "rpclab %s: %s\n", experiment.name.c_str(), note.c_str());
  if (f.dry_run) {
    // The folders' checks the run makes, so a dry run says no where it would.
    if (int code = check_run_folder(f.run, cells, experiment.name,
                                    own.shuffles() ? own.shuffle_seed() : std::nullopt);
        code != kExitOk)
      return code;
    list_cells(cells, f.run);
    // How long the run would take, as the run itself would say before its
    // first trial: the cells that cannot run on this machine left out
    // (with --server-host, as if every server cell could run there).
    CellEnvironment env;
    env.bin_dir = program_dir();
    env.caps = netem::probe_capabilities();
    std::vector<CellConfig> running = running_cells(cells, cells_that_run(experiment, cells, env));
    TimeConstants constants = read_time_constants(time_constants_path());
    std::optional<double> estimate = cells_estimate_s(constants, running);
    size_t left_out = trials_in(cells) - trials_in(running);
    std::string skipped = left_out ? fmt::format(" ({} trials of cells that cannot run here left out)", left_out) : "";
    // The estimate alone, not the table's path: an installed rpclab and the
    // build's say the same of the same plan.
    std::fprintf(stderr, "rpclab %s: %zu trials, estimated time: %s%s%s\n", experiment.name.c_str(),
                 trials_in(running), estimate ? format_duration(*estimate).c_str() : "not known", skipped.c_str(),
                 estimate ? borrowing_note(constants, running).c_str() : "");
    return kExitOk;
  }
  CellEnvironment env;
  env.bin_dir = program_dir();
  env.caps = netem::probe_capabilities();
  // With --server-host the faults are made there: open_remote checks them against that host.
  if (f.remote.server_host.empty())
    for (const CellConfig& cell : cells)
      if (std::string why = missing_backend(cell, env.caps); !why.empty()) {
        std::fprintf(stderr, "rpclab %s: %s\nNothing was run.\n", experiment.name.c_str(), why.c_str());
        return kExitSetup;
      }
  SignalWatcher signals;
  int exit_code = kExitOk;
  std::unique_ptr<RunFolder> opened = open_run_folder(f.run, cells, experiment.name, &exit_code);
  if (!opened) return exit_code;
  RunFolder& folder = *opened;
  if (experiment.sync_batch.count()) folder.sync_in_batches(experiment.sync_batch);
  bool resume = !f.run.resume_dir.empty();
  try {
    if (own.shuffles()) f.run.shuffle_seed = settle_shuffle_seed(folder.dir(), resume, own.shuffle_seed());
    f.run.title = settle_title(folder, resume, f.run.title);
  } catch (const std::invalid_argument& e) {
    return say.usage(e.what());
  }
  std::string program = "rpclab " + experiment.name;
  std::unique_ptr<RemoteSession> remote_clients =
      open_remote_clients(f.remote, program, env.bin_dir, folder.run_id(), folder.log(), &exit_code);
  if (!f.remote.client_host.empty() && !remote_clients) return exit_code;
  std::unique_ptr<RemoteSession> remote = open_remote(f.remote, cells, program, env.bin_dir, folder.run_id(),
                                                      folder.log(), &exit_code, remote_clients.get());
  if (!f.remote.server_host.empty() && !remote) return exit_code;
  if (remote) env.remote = remote_placements(*remote, remote_clients.get(), env);

  size_t trials = trials_in(cells);
  RunMetadata meta = plan.metadata;
  meta.experiment = experiment.name;
  meta.invocation = f.run.invocation;
  meta.command_line = settle_command_line(folder, resume);
  meta.matrix_digest = matrix_digest(cells);
  meta.started_at = iso8601_now();
  meta.cells = cells.size();
  meta.trials = trials;
  meta.title = f.run.title;
  if (own.shuffles()) meta.shuffle_seed = f.run.shuffle_seed;
  add_provenance(meta, env.caps);
  if (remote) meta.server_host = remote->facts();
  if (remote_clients) meta.client_host = remote_clients->host_facts();
  std::string order = own.shuffles() ? fmt::format(" in shuffled order (seed {})", f.run.shuffle_seed) : "";
  std::fprintf(stderr, "rpclab %s: %s, %zu cells, %zu trials%s, results in %s\n", experiment.name.c_str(),
               plan.what.c_str(), cells.size(), trials, order.c_str(), folder.dir().c_str());
  std::unique_ptr<RunHold> hold = own.prepare(env, meta);
  folder.write_metadata(meta);

  RunSummary summary = run_cells(experiment, cells, f.run, folder, signals.stop_requested(), env);
  meta.ended_at = iso8601_now();
  meta.summary = summary_json(summary);
  folder.write_metadata(meta);
  std::string html = print_views(experiment, folder, f.run, summary.wall_time);
  std::fflush(stdout);  // the tables before the closing words on stderr
  print_closing_words(summary, folder);
  if (!html.empty()) std::fprintf(stderr, "Report: %s\n", html.c_str());  // last, where a person looks
  return summary.exit_code();
}

}  // namespace

std::function<int()> add_experiment_command(CLI::App& app, const Experiment& experiment) {
  auto common = std::make_shared<CommonFlags>();
  CLI::App* cmd = app.add_subcommand(experiment.name, experiment.help);
  std::shared_ptr<ExperimentFlags> own = experiment.add_flags(*cmd);
  add_common_flags(cmd, *common);
  return [&experiment, own, common, cmd] {
    for (const CLI::Option* o : cmd->get_options())
      if (o->count() && o->get_name() != "--help") common->run.invocation[o->get_name()] = o->results();
    return run(experiment, *own, *common);
  };
}

}  // namespace rpclab::harness
