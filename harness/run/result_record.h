// The one result record type: a JSON object per cell, one per line of
// results.jsonl (schema: docs/results-format.md). Tables, CSV and plots are
// views of these records and nothing else.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/cell_config.h"

namespace rpclab::harness {

inline constexpr int kRecordVersion = 1;

// The fields every record carries: identity, configuration, environment.
// status starts as "ok"; the experiment adds its measurements.
nlohmann::json base_record(const CellConfig& cell, const std::string& run_id);
void mark(nlohmann::json& record, const std::string& status, const std::string& reason);

// Every field docs/results-format.md marks stable, present in every record:
// a cell that was skipped or failed carries them as null rather than
// leaving them out, so tools can read every record alike.
void add_promised_fields(nlohmann::json& record);

// Reads results.jsonl; a torn last line (a crash mid-write) is skipped and
// reported through `warnings`, never fatal.
std::vector<nlohmann::json> read_records(const std::string& path, std::vector<std::string>* warnings);

// Each cell's last record. A resumed run appends a new record for a cell
// that failed before (or had failed trials); results.jsonl keeps both, and
// the views show the newer one. In matrix order (`cell_index`) where the
// records say it, since shuffled trials finish their cells in any order;
// else in the order the cells first appear.
std::vector<nlohmann::json> latest_per_cell(const std::vector<nlohmann::json>& records);

std::string iso8601_now();

}  // namespace rpclab::harness
