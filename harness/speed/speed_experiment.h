// The speed experiment's row (run/experiment.h): what a call costs, Levy's
// timing test with Allman's and Kiraly's workloads. Its flags and presets
// plan the cells (speed_matrix.h), a trial is one run of a session's
// clients (speed_session.h), a cell's figures speed_summary.h, its tables
// speed_report.h.
#pragma once

#include "harness/run/experiment.h"

namespace rpclab::harness {

Experiment speed_experiment();

}  // namespace rpclab::harness
