// Views of dependability records: Levy's table (rows: transport, columns:
// server load, cells: silent errors per 1,000,000 calls) beside his 1989
// numbers, the faults table, and the full table of classes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::harness {

// `data_dir` holds levy1989-dependability.csv (docs/data of the source tree).
std::string dependability_report(const std::vector<nlohmann::json>& records, const std::string& data_dir);

// "sunrpc-udp retry 20 ms", "grpc": the transport and the settings that make
// a row, without the load and fault axes that make the columns.
std::string row_variant(const nlohmann::json& record);

bool has_faults(const nlohmann::json& record);

}  // namespace rpclab::harness
