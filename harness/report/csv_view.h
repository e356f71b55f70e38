// results.csv: every record flattened to one row (nested keys joined with
// dots) as results.jsonl holds it, columns in order of first appearance. Bulky detail (link counters,
// the cell's own JSON) stays in results.jsonl.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/record/cell_record.h"

namespace rpclab::harness {

// `derived`, when given, adds an object's fields to each record's
// (Experiment::csv_columns).
std::string records_to_csv(const std::vector<CellRecord>& records,
                           const std::function<nlohmann::json(const CellRecord&)>& derived = {});
// The same of any JSON objects, each a row.
std::string csv_of(const std::vector<nlohmann::json>& objects);

}  // namespace rpclab::harness
