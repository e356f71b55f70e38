// One trial, guarded: the common fields of its record, its start and end
// times, and the capture of whatever stops it, the same for every
// experiment and inside a user-mode-linux guest. Only Interrupted (the
// user asked to stop) goes through: that trial is dropped, not recorded.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/run/experiment.h"

namespace rpclab::harness {

nlohmann::json run_trial(const TrialRunner& runner, const CellConfig& cell, const TrialPlace& place,
                         CellEnvironment& env, process::CommandLog& log);

// The fields that say which trial a record is, and that a cell's record
// leaves out of its list of trials (the cell says them once).
nlohmann::json trial_identity(const CellConfig& cell, const TrialPlace& place, const std::string& run_id);
nlohmann::json without_identity(nlohmann::json trial);

}  // namespace rpclab::harness
