// Views of dependability records (results.jsonl, the latest record of each
// cell): Levy's layout (rows: transport, columns: server load, each cell
// silent errors / calls run twice, per 1,000,000) beside his 1989 numbers;
// the same under network faults; under timed events (failures: a row per
// transport, retry policy and at-most-once, a column per event, every
// class); the cells over their trials (in how many
// trials errors happened, the median and bootstrap interval, the onsets,
// the load on the server's CPU); and every call by class.
#pragma once

#include <string>
#include <vector>

#include "harness/dependability/cell_words.h"  // row_variant, has_faults: the rows every view names
#include "harness/record/cell_record.h"
#include "harness/run/experiment.h"

namespace rpclab::harness {

// The report's tables, in the order they print (the row's, experiment.h).
const std::vector<ReportTable>& dependability_tables();
// report.html's "Every cell" columns: the classes of every call, and the
// silent errors over trials (the median of the trials' rates and the
// bootstrap interval of the pooled rate, as the trials table gives them).
CellFigures dependability_cell_figures();
// Those tables, as the row's report would render them.
std::string dependability_report(const std::vector<CellRecord>& records, const ReportOptions& options);

}  // namespace rpclab::harness
