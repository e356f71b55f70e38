#include "ops/allman.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace rpclab {
namespace {

bool close_enough(double want, double got) {
  return std::fabs(want - got) <= 1e-12 * std::max(1.0, std::fabs(want));
}

std::string mismatch(double want, double got) {
  char text[96];
  std::snprintf(text, sizeof text, "%.17g, expected %.17g", got, want);
  return text;
}

}  // namespace

bool allman_is_prime(int32_t n) {
  if (n < 2) return false;
  if (n % 2 == 0) return n == 2;
  for (int64_t d = 3; d * d <= n; d += 2)
    if (n % d == 0) return false;
  return true;
}

double allman_average(const double* values, size_t n) {
  double mean = 0;
  for (size_t i = 0; i < n; ++i) mean += (values[i] - mean) / static_cast<double>(i + 1);
  return mean;
}

std::optional<std::string> allman_refuse_average(const double* values, size_t n) {
  if (n == 0) return std::string("Average of no values has no mean");
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(values[i])) return "value " + std::to_string(i) + " is not a finite number";
  return std::nullopt;
}

std::optional<std::string> allman_refuse_log(const double* values, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(values[i]) || values[i] <= 0)
      return "value " + std::to_string(i) + " has no finite logarithm (LogTransform takes finite numbers > 0)";
  return std::nullopt;
}

std::optional<std::string> allman_refuse_count(int64_t count) {
  if (count < 0 || static_cast<uint64_t>(count) > kAllmanMaxValues)
    return "count " + std::to_string(count) + " is not from 0 to " + std::to_string(kAllmanMaxValues);
  return std::nullopt;
}

void allman_log_transform(const double* values, size_t n, double* out) {
  for (size_t i = 0; i < n; ++i) out[i] = std::log(values[i]);
}

void allman_rand_nums(size_t count, double* out) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (size_t i = 0; i < count; ++i) out[i] = uniform(rng);
}

std::vector<double> allman_inputs(size_t n, uint32_t client_id) {
  std::mt19937_64 rng(n * 2654435761u + client_id);
  std::uniform_real_distribution<double> uniform(1e-3, 1000.0);
  std::vector<double> values(n);
  for (double& v : values) v = uniform(rng);
  return values;
}

std::string allman_check_average(const std::vector<double>& sent, double mean) {
  double want = allman_average(sent.data(), sent.size());
  return close_enough(want, mean) ? "" : "Average is " + mismatch(want, mean);
}

std::string allman_check_rand(size_t count, const std::vector<double>& got) {
  if (got.size() != count)
    return "GetRandNums returned " + std::to_string(got.size()) + " values, asked for " + std::to_string(count);
  for (size_t i = 0; i < got.size(); ++i)
    if (!(got[i] >= 0 && got[i] < 1)) return "GetRandNums value " + std::to_string(i) + " is outside [0, 1)";
  return "";
}

std::string allman_check_log(const std::vector<double>& sent, const std::vector<double>& got) {
  if (got.size() != sent.size())
    return "LogTransform returned " + std::to_string(got.size()) + " values for " + std::to_string(sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    double want = std::log(sent[i]);
    if (!close_enough(want, got[i])) return "LogTransform value " + std::to_string(i) + " is " + mismatch(want, got[i]);
  }
  return "";
}

}  // namespace rpclab
