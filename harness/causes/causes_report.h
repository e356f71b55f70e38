// The causes table of the dependability report: for each cell with extra
// executions, how many each cause explains (the record's `causes`).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/kit/text_table.h"

namespace rpclab::harness {

// The table, or an empty one when no cell ran a call twice.
TextTable causes_table(const std::vector<nlohmann::json>& records);

}  // namespace rpclab::harness
