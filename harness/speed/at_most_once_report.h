// What the at-most-once layer costs a call (rpclab speed --workload
// at-most-once): each transport's NEXT with the server's table and journal
// off and on, measured in the same rounds, as a ratio of the two p50s with
// Welch's test over the trial means.
#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_record.h"

namespace rpclab::harness {

// "" when the records hold no pair of cells that differ only in it.
std::string at_most_once_cost_table(const std::vector<CellRecord>& records, bool markdown = false);

}  // namespace rpclab::harness
