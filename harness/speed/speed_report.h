// Views of speed records: Levy's timing table (seconds per 100 calls, a new
// connection per call) beside his 1989 figures, percentile tables with each
// transport's ratio to the raw floor, the significance of the orderings
// (Welch, alpha 0.01), sockperf calibration, and plots.
#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_record.h"

#include "process/command_log.h"

namespace rpclab::harness {

struct SpeedReport {
  std::string summary;  // what the terminal shows
  std::string full;     // report.txt: every table
};

SpeedReport speed_report(const std::vector<CellRecord>& records, const std::string& data_dir);

// The tables `rpclab report --table` can pick (docs/speed.md quotes them
// through tools/docs-tables.sh), and those tables alone, in that order.
const std::vector<std::string>& speed_report_tables();
std::string speed_tables(const std::vector<CellRecord>& records, const std::string& data_dir,
                         const std::vector<std::string>& ids);

std::vector<std::string> speed_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                     process::CommandLog& log, std::vector<std::string>* notes);

}  // namespace rpclab::harness
