// Result records made by hand, in the shapes the presets give, for tests of
// the views (tables, orders, plots) without running a cell.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/cell_config.h"
#include "harness/record/cell_record.h"

namespace rpclab::harness {

// A dependability record of `cell` with `calls` calls of which `silent_dups`
// were silent duplicates (the rest correct).
nlohmann::json dependability_record(const CellConfig& cell, uint64_t calls, uint64_t silent_dups);
// The same for a default cell of `transport` under `hogs` hogs, no faults.
nlohmann::json dependability_record(const std::string& transport, int hogs, uint64_t calls, uint64_t silent_dups);

// A measured speed record of `cell` whose trials had these mean latencies.
nlohmann::json speed_record(const CellConfig& cell, const std::vector<double>& trial_means_us);
// The same for a loopback, persistent cell of `transport`.
nlohmann::json speed_record(const std::string& transport, int clients, size_t size,
                            const std::vector<double>& trial_means_us);

// The records as a view reads them.
CellRecord typed(const nlohmann::json& record);
std::vector<CellRecord> typed_records(const std::vector<nlohmann::json>& records);

}  // namespace rpclab::harness
