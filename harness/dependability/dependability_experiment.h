// The dependability experiment's row (run/experiment.h): Levy's
// sequenced-counter test. Its flags and presets plan the cells
// (matrix.h), a trial is dependability_trial.h, a cell's figures
// dependability_summary.h, its tables dependability_report.h and its
// plots dependability_plots.h.
#pragma once

#include "harness/run/experiment.h"

namespace rpclab::harness {

Experiment dependability_experiment();

}  // namespace rpclab::harness
