// results.csv: every record flattened to one row (nested keys joined with
// dots) as results.jsonl holds it, columns in order of first appearance. Bulky detail (link counters,
// the cell's own JSON) stays in results.jsonl.
#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_record.h"

namespace rpclab::harness {

std::string records_to_csv(const std::vector<CellRecord>& records);
// The same of any JSON objects, each a row.
std::string csv_of(const std::vector<nlohmann::json>& objects);

}  // namespace rpclab::harness
