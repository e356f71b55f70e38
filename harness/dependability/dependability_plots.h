// The dependability experiment's plots, drawn by kit/plot.h: silent errors
// against load and against the network faults, and the causes' cascades.
#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_record.h"
#include "process/command_log.h"

namespace rpclab::harness {

// The dependability plots: silent errors per million vs load, and vs loss
// and duplication; one line per transport variant. Returns PNG paths.
std::vector<std::string> dependability_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                             process::CommandLog& log, std::vector<std::string>* notes);

}  // namespace rpclab::harness
