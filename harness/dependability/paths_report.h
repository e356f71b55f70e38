// The table an operator acts on (issue 38): for each transport, every path
// (a proxy's default beside the retry settings operators turn on, gRPC's
// own balancing, direct) under each replica event, with and without an
// at-most-once table per replica or shared: how many calls ran twice (and
// in how many trials), what the client was told, where they ran, why.
// The paths' settings follow the table in each proxy's own words.
#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_record.h"
#include "harness/run/experiment.h"

namespace rpclab::harness {

bool on_path(const CellRecord& record);  // a cell on a path of replicas (its own table, not Levy's)
std::string paths_table(const std::vector<CellRecord>& records, const ReportOptions& options);

}  // namespace rpclab::harness
