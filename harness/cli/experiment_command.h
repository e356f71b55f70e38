// One command per experiment, every one the same steps (the experiment
// brings its own flags and cells through its row, run/experiment.h):
//
//   parse      the experiment's flags and the ones every run takes
//              (--out, --resume, --results-root, --cell-time-limit,
//              --dry-run, --title, --format, --server-host and company)
//   plan       the experiment's cells, refused before anything runs when
//              they cannot make a run (exit 2)
//   prepare    the machine probed, the backends a cell names checked, the
//              run folder opened (new, --out, or --resume: checked to hold
//              the same cells), the remote hosts opened, metadata.json
//   run        the trials (run_cells.h), each record on disk as it ends
//   views      report.txt, results.csv, report.html and the plots, then the
//              terminal's tables and where everything is
//   exit code  0, 1 when a cell or trial failed, 130 when interrupted,
//              2 for a usage error, 3 when the run could not be set up
#pragma once

#include <functional>

#include "common/cli_forward.h"
#include "harness/run/experiment.h"

namespace rpclab::harness {

// Adds `experiment`'s command to `app`; the function runs it once parsed
// and returns the exit code.
std::function<int()> add_experiment_command(CLI::App& app, const Experiment& experiment);

}  // namespace rpclab::harness
