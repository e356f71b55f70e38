#include "harness/speed/sockperf.h"

#include <regex>
#include <sstream>

namespace rpclab::harness {

std::optional<CalibrationLatency> parse_sockperf(const std::string& output) {
  static const std::regex percentile(R"(percentile\s+([0-9.]+)\s*=\s*([0-9.]+))");
  static const std::regex maximum(R"(<MAX> observation\s*=\s*([0-9.]+))");
  static const std::regex average(R"(avg-rtt=([0-9.]+))");
  static const std::regex valid(R"(\[Valid Duration\] RunTime=([0-9.]+) sec; SentMessages=(\d+); ReceivedMessages=(\d+))");
  CalibrationLatency r;
  bool any = false;
  std::istringstream in(output);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, percentile)) {
      double p = std::stod(m[1]), v = std::stod(m[2]);
      any = true;
      if (p == 50) r.p50_us = v;
      else if (p == 90) r.p90_us = v;
      else if (p == 99) r.p99_us = v;
      else if (p == 99.9) r.p999_us = v;
    } else if (std::regex_search(line, m, maximum)) {
      r.max_us = std::stod(m[1]);
    } else if (std::regex_search(line, m, average)) {
      r.avg_us = std::stod(m[1]);
    } else if (std::regex_search(line, m, valid)) {
      r.duration_s = std::stod(m[1]);
      r.observations = std::stoull(m[3]);
    }
  }
  if (!any) return std::nullopt;
  return r;
}

}  // namespace rpclab::harness
