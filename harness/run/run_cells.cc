#include "harness/run/run_cells.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "harness/run/cell_failure.h"
#include "harness/run/output_flags.h"
#include "harness/run/result_record.h"
#include "harness/run/time_estimate.h"
#include "harness/run/trial_book.h"
#include "harness/run/trial_run.h"
#include "netem/topology/topology.h"

namespace rpclab::harness {
namespace {

uint32_t trials_of(const CellConfig& cell) { return static_cast<uint32_t>(std::max(1, cell.trials)); }

// A finished trial or cell in a few words: why it did not run, or the
// experiment's words for what it measured.
template <typename Record>
std::string outcome_words(const Record& record, const std::function<std::string(const Record&)>& words) {
  if (record.ok()) return words(record);
  return (record.status == "failed" ? "FAILED: " : "skipped: ") + record.reason;
}

// The cell's status from its trials': skipped when one was (the cell cannot
// run here), failed when none ended ok, else ok with a note of the failures.
void set_status(CellRecord& record, const std::vector<TrialRecord>& trials, size_t ok,
                const std::vector<FailedTrial>& failed) {
  for (const TrialRecord& t : trials)
    if (t.status == "skipped") return mark(record, "skipped", t.reason);
  if (ok == 0) {
    std::string why = failed.empty() ? "no trial ran" : failed.front().reason;
    return mark(record, "failed", failed.size() > 1 ? fmt::format("all {} trials failed; trial {}: {}", failed.size(),
                                                                   failed.front().trial, why)
                                                    : why);
  }
  if (!failed.empty())
    mark(record, "ok", fmt::format("{} of {} trials failed, the figures are over the other {} (trial {}: {})",
                                   failed.size(), ok + failed.size(), ok, failed.front().trial,
                                   failed.front().reason));
}

}  // namespace

std::vector<bool> cells_that_run(const Experiment& experiment, const std::vector<CellConfig>& cells,
                                 const CellEnvironment& env) {
  std::vector<bool> runs(cells.size(), true);
  if (experiment.cannot_run)
    for (size_t i = 0; i < cells.size(); ++i) runs[i] = experiment.cannot_run(cells[i], env).empty();
  return runs;
}

std::vector<CellConfig> running_cells(const std::vector<CellConfig>& cells, const std::vector<bool>& runs) {
  std::vector<CellConfig> running;
  for (size_t i = 0; i < cells.size(); ++i)
    if (runs[i]) running.push_back(cells[i]);
  return running;
}

std::vector<TrialRecord> ok_trials(const std::vector<TrialRecord>& trials) {
  std::vector<TrialRecord> ok;
  for (const TrialRecord& t : trials)
    if (t.ok()) ok.push_back(t);
  return ok;
}

int RunSummary::exit_code() const {
  if (interrupted) return 130;
  return failed || trials_failed ? 1 : 0;
}

nlohmann::json summary_json(const RunSummary& s) {
  return {{"ok", s.ok},
          {"skipped", s.skipped},
          {"failed", s.failed},
          {"resumed", s.resumed},
          {"trials_run", s.trials_run},
          {"trials_failed", s.trials_failed},
          {"trials_resumed", s.trials_resumed},
          {"interrupted", s.interrupted},
          {"wall_time", s.wall_time}};
}

void print_closing_words(const RunSummary& s, const RunFolder& folder) {
  if (s.interrupted)
    std::fprintf(stderr, "rpclab: interrupted; %s. Continue with:\n  %s\n",
                 s.trials_run + s.trials_resumed ? "finished trials are kept" : "no trial finished",
                 resume_hint(folder).c_str());
  if (s.failed)
    std::fprintf(stderr, "rpclab: %zu cell(s) failed; their reasons are in the tables above and in results.jsonl\n",
                 s.failed);
  if (s.trials_failed)
    std::fprintf(stderr, "rpclab: %zu trial(s) failed; each cell's record says which and why (trials_failed), "
                 "and --resume runs them again\n", s.trials_failed);
}

CellRecord cell_record(const Experiment& experiment, const CellConfig& cell, size_t cell_index,
                       const std::string& cell_dir, const std::vector<TrialRecord>& trials,
                       const std::vector<CellRecord>& earlier, const std::string& run_id) {
  CellRecord record = CellRecord::begin(cell, run_id);
  record.cell_index = cell_index;
  record.cell_dir = cell_dir;
  record.trials = trials_of(cell);
  size_t ok = 0;
  std::vector<FailedTrial> failed;
  std::string started, ended;
  double wall_s = 0;
  for (const TrialRecord& t : trials) {
    ok += t.ok() ? 1 : 0;
    if (t.status == "failed") failed.push_back({t.trial, t.reason});
    std::string s = t.started_at.value_or(""), e = t.ended_at.value_or("");
    if (started.empty() || s < started) started = s;  // ISO 8601 UTC sorts as text
    ended = std::max(ended, e);
    wall_s += t.wall_s.value_or(0.0);
  }
  record.started_at = started;
  record.ended_at = ended;
  record.wall_s = wall_s;  // the trials' own time: they ran among other cells' trials
  record.trials_ok = ok;
  record.trials_failed = failed;
  set_status(record, trials, ok, failed);
  try {
    experiment.summarize(cell, trials, earlier, record);
  } catch (const std::exception& e) {  // a trial's files gone or damaged: this cell fails, the run goes on
    mark(record, "failed", std::string("cannot make the cell's figures from its trials: ") + e.what());
  }
  record.per_trial = trials;
  keep_stable_fields(record);
  return record;
}

namespace {

// A trial with timed events lasts its duration; any other makes its calls.
TrialWork work_of(const CellConfig& cell) {
  if (cell.duration_ms) return TrialWork{0, static_cast<double>(*cell.duration_ms) / 1000.0};
  return TrialWork{cell.total_calls(), 0};
}

// The plan's estimate of the trials to run, those of cells that cannot run
// here left out: nullopt when one of the others has no row in the time
// constants.
std::optional<double> plan_estimate_s(const std::vector<TrialSlot>& todo, const std::vector<CellConfig>& cells,
                                      const std::vector<bool>& runs, const TimeConstants& constants) {
  double total = 0;
  for (const TrialSlot& slot : todo) {
    if (!runs[slot.cell]) continue;
    std::optional<double> one = trial_estimate_s(constants, cells[slot.cell]);
    if (!one) return std::nullopt;
    total += *one;
  }
  return total;
}

// The line before the first trial: how long the plan will take, and from
// which measured constants; or why there is no estimate. `left_out`: the
// trials of cells that cannot run here.
void say_estimate(std::optional<double> estimate_s, size_t trials, size_t left_out, const std::string& experiment,
                  const std::string& path, const TimeConstants& constants, const std::string& borrowing) {
  if (trials == 0) return;
  std::string skipped = left_out == 0 ? ""
                                      : fmt::format("; {} trials of cells that cannot run here are left out, and "
                                                    "each says why as it is skipped", left_out);
  trials -= left_out;
  if (!estimate_s) {
    std::fprintf(stderr, "rpclab: no estimate of this run's time: %s has no row for some of the %s experiment's "
                 "cells (rpclab time-constants RUN_DIR adds them from a run)\n", path.c_str(), experiment.c_str());
    return;
  }
  std::string runs;
  for (const TimeConstant& row : constants.rows)
    if (row.experiment == experiment && runs.find(row.run) == std::string::npos)
      runs += (runs.empty() ? "" : ", ") + row.run;
  std::fprintf(stderr, "rpclab: estimated time: %s for %zu trials (each trial's calls and overhead, from the time "
               "constants of run %s)%s%s\n", format_duration(*estimate_s).c_str(), trials, runs.c_str(),
               borrowing.c_str(), skipped.c_str());
}


// The loop's state: the folder, what is on disk, and the counts so far.
struct Loop {
  const Experiment& experiment;
  const std::vector<CellConfig>& cells;
  RunFolder& folder;
  CellEnvironment& env;
  TrialBook book;
  RunSummary summary;
  std::vector<bool> recorded;  // a cell record was written by this run
  bool json_lines;             // --format json: each record also to stdout

  void finish_cell_if_complete(size_t index, Progress* progress) {
    const CellConfig& cell = cells[index];
    if (recorded[index] || book.cell_done(cell.id()) || !book.cell_complete(cell.id(), trials_of(cell))) return;
    std::string dir = folder.cell_dir(index + 1, cell.label());
    CellRecord record =
        cell_record(experiment, cell, index + 1, dir, book.trials_of(cell.id()), book.cell_records(), env.run_id);
    folder.append(record);
    if (json_lines) print_json_line(record);
    book.add_cell(record);
    recorded[index] = true;
    ++(record.ok() ? summary.ok : record.status == "skipped" ? summary.skipped : summary.failed);
    if (progress && record.status != "skipped")
      progress->note(fmt::format("    cell {}: {}", cell.label(), outcome_words(record, experiment.cell_words)));
  }

  // A trial's folder is made fresh: nothing of an earlier, interrupted
  // attempt (a ready file with an old port, an old ledger) can be read.
  TrialPlace place(const TrialSlot& slot) {
    const CellConfig& cell = cells[slot.cell];
    TrialPlace p{slot.cell + 1, slot.trial, trials_of(cell), ""};
    p.dir = folder.cell_dir(slot.cell + 1, cell.label()) + "/trial-" + std::to_string(slot.trial);
    std::filesystem::remove_all(p.dir);
    std::filesystem::create_directories(p.dir);
    return p;
  }
};

}  // namespace

RunSummary run_cells(const Experiment& experiment, const std::vector<CellConfig>& cells, const RunOptions& options,
                     RunFolder& folder, const std::atomic<bool>& stop, CellEnvironment& env) {
  auto started = std::chrono::steady_clock::now();
  std::vector<std::string> warnings;
  Loop loop{experiment, cells, folder, env, TrialBook(folder.trials_path(), folder.results_path(), &warnings), {},
            std::vector<bool>(cells.size(), false), options.json_lines};
  for (const std::string& w : warnings) std::fprintf(stderr, "rpclab: %s\n", w.c_str());
  loop.summary.dir = folder.dir();
  if (env.caps.root)
    for (const std::string& ns : netem::remove_stale_namespaces(folder.log()))
      std::fprintf(stderr, "rpclab: removed namespace %s left by a run that no longer exists\n", ns.c_str());
  env.stop = &stop;
  env.cell_time_limit_s = options.cell_time_limit_s;
  env.run_id = folder.run_id();

  std::string constants_path = time_constants_path();
  TimeConstants constants = read_time_constants(constants_path);
  std::vector<TrialSlot> todo;
  TrialWork work;
  for (size_t i = 0; i < cells.size(); ++i) loop.summary.resumed += loop.book.cell_done(cells[i].id()) ? 1 : 0;
  for (const TrialSlot& slot : experiment.schedule(cells, options.shuffle_seed)) {
    const CellConfig& cell = cells[slot.cell];
    if (loop.book.cell_done(cell.id()) || loop.book.trial_done(cell.id(), slot.trial)) {
      ++loop.summary.trials_resumed;
      continue;
    }
    todo.push_back(slot);
    work += work_of(cell);
  }
  if (loop.summary.trials_resumed)
    std::fprintf(stderr, "rpclab: resuming: %zu trials already done (%zu cells whole), %zu to run\n",
                 loop.summary.trials_resumed, loop.summary.resumed, todo.size());
  for (size_t i = 0; i < cells.size(); ++i) loop.finish_cell_if_complete(i, nullptr);  // killed between two appends

  std::vector<bool> runs = cells_that_run(experiment, cells, env);
  size_t left_out = static_cast<size_t>(
      std::count_if(todo.begin(), todo.end(), [&](const TrialSlot& slot) { return !runs[slot.cell]; }));
  std::optional<double> estimate = plan_estimate_s(todo, cells, runs, constants);
  say_estimate(estimate, todo.size(), left_out, experiment.name, constants_path, constants,
               borrowing_note(constants, running_cells(cells, runs)));
  // The plan's time of one of `todo`'s trials (with an estimate).
  auto estimate_of = [&](size_t cell) { return runs[cell] ? *trial_estimate_s(constants, cells[cell]) : 0.0; };
  loop.summary.wall_time.estimated_s = estimate;
  std::optional<PlanClock> clock;
  if (estimate) clock.emplace(*estimate);
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  TrialRunner runner = experiment.trial_runner(folder.dir(), env);
  Progress progress(todo.size(), work);
  env.progress = &progress;
  size_t shown = 0;
  for (const TrialSlot& slot : todo) {
    const CellConfig& cell = cells[slot.cell];
    if (stop.load()) {
      loop.summary.interrupted = true;
      break;
    }
    if (loop.book.cell_skipped(cell.id())) {  // an earlier trial found that this cell cannot run here
      progress.skip_trial(work_of(cell));
      if (clock) clock->trial_done(estimate_of(slot.cell), false);
      continue;
    }
    TrialPlace place = loop.place(slot);
    std::string name = fmt::format("{}, trial {}/{}", cell.label(), place.trial, place.trials);
    progress.begin_trial(++shown, name, work_of(cell));
    folder.log().comment(fmt::format("cell {}/{} trial {}/{}: {}", place.cell_index, cells.size(), place.trial,
                                     place.trials, cell.label()));
    TrialRecord trial;
    try {
      trial = run_trial(runner, cell, place, env, folder.log());
    } catch (const Interrupted&) {
      loop.summary.interrupted = true;
      progress.note(fmt::format("[{}] {}: interrupted; this trial is not recorded", shown, name));
      break;
    }
    folder.append_trial(trial);
    loop.book.add_trial(trial);
    ++loop.summary.trials_run;
    loop.summary.trials_failed += trial.status == "failed" ? 1 : 0;
    std::string words = outcome_words(trial, experiment.trial_words);
    if (clock) {
      clock->trial_done(estimate_of(slot.cell), true);
      words += "; " + clock->words(elapsed_s());
    }
    progress.end_trial(words);
    loop.finish_cell_if_complete(slot.cell, &progress);
  }
  env.progress = nullptr;
  loop.summary.wall_time.actual_s = elapsed_s();
  return loop.summary;
}

}  // namespace rpclab::harness
