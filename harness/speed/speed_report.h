// Views of speed records: Levy's timing table (seconds per 100 calls, a new
// connection per call) beside his 1989 figures, percentile tables with each
// transport's ratio to the raw floor, the significance of the orderings
// (Welch, alpha 0.01), sockperf calibration, and plots.
#pragma once

#include <string>
#include <vector>

#include "harness/kit/plot.h"
#include "harness/record/cell_record.h"

#include "harness/run/experiment.h"
#include "process/command_log.h"

namespace rpclab::harness {

// The report's tables, in the order they print (the row's, experiment.h).
const std::vector<ReportTable>& speed_tables();
// report.html's "Every cell" columns: each cell's latencies and rate.
CellFigures speed_cell_figures();
// Those tables, as the row's report would render them.
std::string speed_report(const std::vector<CellRecord>& records, const ReportOptions& options);

// The plots the report draws besides Allman's (latency against size,
// throughput against clients, the latency distributions, the rate
// sweeps), each series titled as its legend says it, noise marked.
std::vector<PlotSpec> speed_plot_specs(const std::vector<CellRecord>& records);
std::vector<std::string> speed_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                     process::CommandLog& log, std::vector<std::string>* notes);

}  // namespace rpclab::harness
