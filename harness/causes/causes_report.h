// The causes table of the dependability report: for each cell with extra
// executions, how many each cause explains (the record's `causes`).
#pragma once

#include <string>
#include <vector>

#include "harness/kit/text_table.h"
#include "harness/record/cell_record.h"

namespace rpclab::harness {

// The table, or an empty one when no cell ran a call twice.
TextTable causes_table(const std::vector<CellRecord>& records);

}  // namespace rpclab::harness
