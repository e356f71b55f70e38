// The one result record type: a JSON object per cell, one per line of
// results.jsonl (schema: docs/results-format.md). Tables, CSV and plots are
// views of these records and nothing else.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/cell_config.h"

namespace rpclab::harness {

inline constexpr int kRecordVersion = 1;

// The fields every record carries: identity, configuration, environment.
// status starts as "ok"; the experiment adds its measurements.
nlohmann::json base_record(const CellConfig& cell, const std::string& run_id);
void mark(nlohmann::json& record, const std::string& status, const std::string& reason);

// Every field issues 4 and 5 promise, present in every record: a cell that
// was skipped or failed carries them as null rather than leaving them out.
void add_promised_fields(nlohmann::json& record);

// Reads results.jsonl; a torn last line (a crash mid-write) is skipped and
// reported through `warnings`, never fatal.
std::vector<nlohmann::json> read_records(const std::string& path, std::vector<std::string>* warnings);

std::string iso8601_now();

}  // namespace rpclab::harness
