#include "harness/run/trial_run.h"

#include <chrono>

#include "harness/run/cell_failure.h"
#include "harness/run/result_record.h"

namespace rpclab::harness {

TrialRecord trial_record(const CellConfig& cell, const TrialPlace& place, const std::string& run_id) {
  return TrialRecord::begin(cell, place.cell_index, place.trial, place.trials, place.dir, run_id);
}

TrialRecord run_trial(const TrialRunner& runner, const CellConfig& cell, const TrialPlace& place,
                      CellEnvironment& env, process::CommandLog& log) {
  TrialRecord trial = trial_record(cell, place, env.run_id);
  trial.started_at = iso8601_now();
  auto t0 = std::chrono::steady_clock::now();
  try {
    runner(cell, place, env, log, trial);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    // A server that died, a command that failed, a namespace that could
    // not be made, a record that could not be read: the trial failed, the
    // run goes on. Every kind is caught here, once, for every experiment.
    mark(trial, "failed", e.what());
  }
  trial.ended_at = iso8601_now();
  trial.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return trial;
}

}  // namespace rpclab::harness
