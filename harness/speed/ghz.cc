#include "harness/speed/ghz.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/install_paths.h"
#include "harness/kit/stats.h"
#include "process/command_runner.h"

namespace rpclab::harness {

std::optional<CalibrationLatency> parse_ghz(const nlohmann::json& report) {
  const nlohmann::json* details = report.contains("details") ? &report.at("details") : nullptr;  // not a record: ghz's
  if (!details || !details->is_array()) return std::nullopt;
  std::vector<double> us;
  CalibrationLatency r;
  double sum = 0;
  for (const nlohmann::json& d : *details) {
    if (d.value("status", "") != "OK" || !d.value("error", "").empty()) {  // not a record: a call of ghz's report
      ++r.errors;
      continue;
    }
    double v = d.value("latency", 0.0) / 1000.0;  // not a record: ghz's latency, in ns
    us.push_back(v);
    sum += v;
  }
  if (us.empty()) return std::nullopt;
  std::sort(us.begin(), us.end());
  r.observations = us.size();
  r.p50_us = percentile_sorted(us, 50);
  r.p90_us = percentile_sorted(us, 90);
  r.p99_us = percentile_sorted(us, 99);
  r.p999_us = percentile_sorted(us, 99.9);
  r.max_us = us.back();
  r.avg_us = sum / static_cast<double>(us.size());
  double rps = report.value("rps", 0.0);  // not a record: ghz's report
  r.duration_s = rps > 0 ? static_cast<double>(us.size() + r.errors) / rps : 0;
  return r;
}

std::vector<std::string> ghz_argv(const std::string& ghz, const std::string& endpoint, uint64_t calls,
                                  uint64_t warmup, int timeout_ms, const std::string& data_file,
                                  const std::string& report_file) {
  return {ghz,
          "--insecure",
          "--call",
          "rpclab.wire.Rpclab/Echo",
          "-D",
          data_file,
          "-n",
          std::to_string(calls + warmup),
          "--skipFirst",
          std::to_string(warmup),
          "-c",
          "1",
          "--connections",
          "1",
          "--timeout",
          fmt::format("{}ms", timeout_ms),
          "-O",
          "json",
          "-o",
          report_file,
          endpoint};
}

std::string ghz_echo_request(size_t size) {
  // Zero bytes: base64 is "AAAA" for each three, then "AA==" or "AAA=".
  std::string b64(size / 3 * 4, 'A');
  if (size % 3 == 1) b64 += "AA==";
  if (size % 3 == 2) b64 += "AAA=";
  return "{\"payload\":\"" + b64 + "\"}\n";
}

std::string find_ghz(std::string* why_not) {
  std::string beside = program_dir() + "/tools/ghz";
  if (::access(beside.c_str(), X_OK) == 0) return beside;
  std::string found = process::tool_path("ghz");
  if (found.find('/') != std::string::npos) return found;
  std::ifstream failed(program_dir() + "/tools/ghz.build-failed");
  std::stringstream why;
  why << failed.rdbuf();
  std::string reason = why.str();
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  *why_not = reason.empty() ? "ghz is not built (make builds it into build/tools/ghz: tools/ghz.sh)"
                            : "ghz did not build: " + reason;
  return "";
}

}  // namespace rpclab::harness
