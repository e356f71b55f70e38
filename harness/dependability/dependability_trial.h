// One dependability trial, start to finish: a fresh link and faults, a
// fresh server with its ledger, load, clients sending their sequences with
// NEXT, then the join. Its record (trials.jsonl) holds the classes, each
// client's counts, the episodes, the load and the faults measured; the
// cell's record is made from its trials' (dependability_summary.h).
//
// The trial is written once, against a placement (run/placement.h): this
// kernel's namespaces, another machine over ssh (--server-host), or, when
// its faults need netem and this kernel has none, a user-mode-linux guest
// that runs this same trial inside.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/run/experiment.h"
#include "harness/placement/placement.h"

namespace rpclab::harness {

// Why a dependability cell cannot run here ("" when it can): an adapter
// that cannot do what the cell asks, a path with --server-host, a topology
// or faults this machine cannot make. The Experiment row's cannot_run, and
// the runner's first word on each trial.
std::string dependability_cannot_run(const CellConfig& cell, const CellEnvironment& env);

// A TrialRunner (experiment.h): places the trial and runs it. Marks the
// trial skipped when the cell cannot run on this machine; throws when the
// trial cannot finish.
void run_dependability_trial(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                             process::CommandLog& log, TrialRecord& trial);

// The trial itself, wherever `at` puts it.
void run_placed_trial(Placement& at, const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                      process::CommandLog& log, TrialRecord& trial);

}  // namespace rpclab::harness
