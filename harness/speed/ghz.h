// Calibration of the grpc row: ghz (github.com/bojand/ghz, pinned and
// built by tools/ghz.sh), a gRPC load generator that is not rpclab, calls
// ECHO on rpclab's own gRPC server in the same run, one connection, one
// call at a time, as a single rpclab client does. Its p50 beside the grpc
// row's says whether rpclab's client is the slower load generator.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/speed/sockperf.h"

namespace rpclab::harness {

// ghz's figures from its JSON report (-O json): every call's latency is in
// its `details`, so the percentiles are taken as rpclab takes its own
// (nearest rank over the calls that succeeded); duration from its rate.
// nullopt when the report has no successful call (ghz failed).
std::optional<CalibrationLatency> parse_ghz(const nlohmann::json& report);

// ghz's command line: `calls` ECHOs of `size` bytes (the request in
// `data_file`) after `warmup` left out of the figures, to `endpoint`
// (host:port), the report as JSON into `report_file`. The service is read
// from the server by reflection, which rpclab's gRPC server serves.
std::vector<std::string> ghz_argv(const std::string& ghz, const std::string& endpoint, uint64_t calls,
                                  uint64_t warmup, int timeout_ms, const std::string& data_file,
                                  const std::string& report_file);

// The request as ghz reads it (-D): {"payload": base64 of `size` zero bytes}.
std::string ghz_echo_request(size_t size);

// Where ghz is: beside this program (the build's tools/ghz), else on PATH;
// "" with `why_not` set when neither (what a skipped cell says).
std::string find_ghz(std::string* why_not);

}  // namespace rpclab::harness
