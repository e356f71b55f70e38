// One trial, guarded: the common fields of its record, its start and end
// times, and the capture of whatever stops it, the same for every
// experiment and inside a user-mode-linux guest. Only Interrupted (the
// user asked to stop) goes through: that trial is dropped, not recorded.
#pragma once

#include "harness/record/trial_record.h"
#include "harness/run/experiment.h"

namespace rpclab::harness {

TrialRecord run_trial(const TrialRunner& runner, const CellConfig& cell, const TrialPlace& place,
                      CellEnvironment& env, process::CommandLog& log);

// The record of the trial at `place`, its common fields set, status ok.
TrialRecord trial_record(const CellConfig& cell, const TrialPlace& place, const std::string& run_id);

}  // namespace rpclab::harness
