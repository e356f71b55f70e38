// Extra executions over time, one line per client, for each dependability
// cell that had a cascade (harness/causes/attribution.h): where a client's line
// leaves zero is its onset, and a steep line is a storm. Drawn from the
// journal of the cell's first trial that ran a call twice, under the run
// folder as cascades-NNN.{png,svg} (NNN: the cell's folder number).
#pragma once

#include <string>
#include <vector>

#include "harness/kit/plot.h"
#include "harness/record/cell_record.h"

namespace rpclab::harness {

// Each client's executions beyond its calls' first, by the server's clock
// (the kernel's receive stamp where the journal has it): cumulative counts
// at `points` evenly spaced times from the trial's first execution to its
// last, x in seconds from the first.
std::vector<Series> extra_executions_over_time(const std::string& journal_path, size_t points);

std::vector<std::string> cascade_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                       process::CommandLog& log, std::vector<std::string>* notes);

}  // namespace rpclab::harness
