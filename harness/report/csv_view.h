// results.csv: every record flattened to one row (nested keys joined with
// dots), columns in order of first appearance. Bulky detail (link counters,
// the cell's own JSON) stays in results.jsonl.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::harness {

std::string records_to_csv(const std::vector<nlohmann::json>& records);

}  // namespace rpclab::harness
