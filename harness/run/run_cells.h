// The run loop, the same for every experiment: stale namespaces removed,
// the experiment's trial order, resume per trial, each trial run guarded
// and its record appended to trials.jsonl the moment it ends, and each
// cell's record appended to results.jsonl when its last trial ends.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/run/experiment.h"
#include "harness/run/experiment_run.h"
#include "harness/run/run_folder.h"
#include "harness/run/time_estimate.h"

namespace rpclab::harness {

struct RunSummary {
  std::string dir;
  size_t ok = 0, skipped = 0, failed = 0, resumed = 0;  // cells
  size_t trials_run = 0, trials_failed = 0, trials_resumed = 0;
  bool interrupted = false;
  WallTime wall_time;  // the plan's estimate of the trials to run, and what they took
  int exit_code() const;  // 130 interrupted, 1 if a cell or a trial failed, else 0
};

// For metadata.json, and the words on stderr after the tables: how to
// resume an interrupted run, what failed.
nlohmann::json summary_json(const RunSummary& summary);
void print_closing_words(const RunSummary& summary, const RunFolder& folder);

// The cells that can run on this machine, by the experiment's own rule
// (Experiment::cannot_run; every cell when it has none): the estimate
// leaves the others' trials out.
std::vector<bool> cells_that_run(const Experiment& experiment, const std::vector<CellConfig>& cells,
                                 const CellEnvironment& env);
// The cells `runs` marks, in plan order: what the estimate is made of.
std::vector<CellConfig> running_cells(const std::vector<CellConfig>& cells, const std::vector<bool>& runs);

RunSummary run_cells(const Experiment& experiment, const std::vector<CellConfig>& cells, const RunOptions& options,
                     RunFolder& folder, const std::atomic<bool>& stop, CellEnvironment& env);

// A cell's record from its trials' records (by trial number): the common
// fields, when it ran, which trials failed and why, its status, then the
// experiment's own figures, then the trials themselves.
CellRecord cell_record(const Experiment& experiment, const CellConfig& cell, size_t cell_index,
                       const std::string& cell_dir, const std::vector<TrialRecord>& trials,
                       const std::vector<CellRecord>& earlier, const std::string& run_id);

}  // namespace rpclab::harness
