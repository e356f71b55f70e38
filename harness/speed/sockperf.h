// Calibration: sockperf ping-pong (--full-rtt) at the speed experiment's
// sizes, in the same run, so the raw floor's overhead over a tuned
// measurement tool is printed beside it.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rpclab::harness {

inline constexpr size_t kSockperfMinSize = 14;     // sockperf's smallest message
inline constexpr size_t kSockperfMaxSize = 65000;  // kept under sockperf's UDP limit

// What a calibration tool measured (sockperf, ghz: ghz.h), as its trial
// records it.
struct CalibrationLatency {
  double avg_us = 0, p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
  uint64_t observations = 0;  // calls (round trips) that succeeded
  uint64_t errors = 0;        // that did not
  double duration_s = 0;
};

// Parses `sockperf ping-pong --full-rtt` output; nullopt when it has no
// percentile lines (sockperf failed).
std::optional<CalibrationLatency> parse_sockperf(const std::string& output);

}  // namespace rpclab::harness
