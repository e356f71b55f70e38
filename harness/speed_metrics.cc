#include "harness/speed_metrics.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace rpclab::harness {
namespace {

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

SpeedMetrics speed_metrics(const std::vector<CallRecord>& records, uint64_t calls_per_trial) {
  SpeedMetrics m;
  std::vector<double> all;
  std::vector<double> trial_sum, trial_n, client_trial_time;
  int64_t first_start = std::numeric_limits<int64_t>::max(), last_start = 0, last_end = 0;
  double cpu_us = 0;
  for (const CallRecord& r : records) {
    for (size_t i = 0; i < r.calls.size(); ++i) {
      const CallEntry& e = r.calls[i];
      if (e.kind != ErrorKind::kOk) {
        ++m.errors;
        continue;
      }
      size_t trial = calls_per_trial ? i / calls_per_trial : 0;
      if (trial >= trial_sum.size()) trial_sum.resize(trial + 1), trial_n.resize(trial + 1);
      trial_sum[trial] += us(e.latency_ns);
      trial_n[trial] += 1;
      all.push_back(us(e.latency_ns));
    }
    int64_t start = r.header.value("start_realtime_ns", int64_t{0});
    first_start = std::min(first_start, start);
    last_start = std::max(last_start, start);
    last_end = std::max(last_end, r.header.value("end_realtime_ns", int64_t{0}));
    cpu_us += r.header.value("cpu_user_us", 0.0) + r.header.value("cpu_sys_us", 0.0);
  }
  m.calls = all.size();
  if (all.empty()) return m;
  std::sort(all.begin(), all.end());
  m.p50_us = percentile_sorted(all, 50);
  m.p90_us = percentile_sorted(all, 90);
  m.p99_us = percentile_sorted(all, 99);
  m.p999_us = percentile_sorted(all, 99.9);
  m.max_us = all.back();
  m.mean_us = std::accumulate(all.begin(), all.end(), 0.0) / static_cast<double>(all.size());
  for (size_t t = 0; t < trial_sum.size(); ++t)
    if (trial_n[t] > 0) m.trial_means_us.push_back(trial_sum[t] / trial_n[t]);
  m.trials = summarize(m.trial_means_us);
  // Levy timed a client's 100 calls; with calls back to back that is 100
  // times the mean call.
  m.seconds_per_100_calls = m.mean_us * 100 / 1e6;
  double span_s = static_cast<double>(last_end - first_start) / 1e9;
  m.calls_per_s = span_s > 0 ? static_cast<double>(m.calls + m.errors) / span_s : 0;
  m.client_cpu_us_per_call = cpu_us / static_cast<double>(m.calls + m.errors);
  m.start_skew_ms = static_cast<double>(last_start - first_start) / 1e6;
  return m;
}

nlohmann::json SpeedMetrics::to_json() const {
  return {{"calls_measured", calls},
          {"errors", errors},
          {"p50_us", p50_us},
          {"p90_us", p90_us},
          {"p99_us", p99_us},
          {"p999_us", p999_us},
          {"max_us", max_us},
          {"mean_us", mean_us},
          {"trial_means_us", trial_means_us},
          {"mean_ci95_us", {trials.ci95_low, trials.ci95_high}},
          {"seconds_per_100_calls", seconds_per_100_calls},
          {"calls_per_s", calls_per_s},
          {"start_skew_ms", start_skew_ms}};
}

}  // namespace rpclab::harness
