#include "harness/speed/speed_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "client/call_record_header.h"

namespace rpclab::harness {
namespace {

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// One trial's clients: their successful latencies, and when they ran.
struct TrialSpan {
  double sum_us = 0;
  size_t ok = 0;
  int64_t first_start = std::numeric_limits<int64_t>::max(), last_start = 0, last_end = 0;
};

TrialSpan add_trial(const std::vector<CallRecord>& clients, SpeedMetrics& m, std::vector<double>& all, double& cpu_us) {
  TrialSpan t;
  for (const CallRecord& r : clients) {
    for (size_t i = 0; i < r.calls.size(); ++i) {
      if (r.calls[i].kind != ErrorKind::kOk) {
        ++m.errors;
        continue;
      }
      double latency = us(latency_from_due_ns(r, i));
      t.sum_us += latency;
      ++t.ok;
      all.push_back(latency);
    }
    CallRecordHeader head = header_of(r);
    t.first_start = std::min(t.first_start, head.start_realtime_ns);
    t.last_start = std::max(t.last_start, head.start_realtime_ns);
    t.last_end = std::max(t.last_end, head.end_realtime_ns);
    cpu_us += head.cpu_user_us + head.cpu_sys_us;
  }
  return t;
}

void fill_histogram(const std::vector<double>& sorted, SpeedMetrics& m) {
  for (double us : sorted) {
    double low = histogram_bucket_low(us);
    if (m.histogram_low_us.empty() || m.histogram_low_us.back() != low) {
      m.histogram_low_us.push_back(low);
      m.histogram_counts.push_back(0);
    }
    ++m.histogram_counts.back();
  }
}

// The clients' rates together, or none when any of them ran a closed loop.
std::optional<double> offered(const std::vector<CallRecord>& clients) {
  double sum = 0;
  for (const CallRecord& r : clients) {
    std::optional<double> rate = r.rate_per_s();
    if (!rate) return std::nullopt;
    sum += *rate;
  }
  return clients.empty() ? std::nullopt : std::optional<double>(sum);
}

}  // namespace

int64_t latency_from_due_ns(const CallRecord& record, size_t i) {
  const CallEntry& e = record.calls[i];
  if (!record.rate_per_s()) return e.latency_ns;
  return std::max<int64_t>(0, e.start_ns - record.due_ns(i)) + e.latency_ns;
}

double histogram_bucket_low(double us) {
  double i = std::floor(std::log10(std::max(us, 0.1)) * kHistogramBucketsPerDecade + 1e-9);
  return std::pow(10.0, i / kHistogramBucketsPerDecade);
}

SpeedMetrics speed_metrics(const std::vector<std::vector<CallRecord>>& trials) {
  SpeedMetrics m;
  std::vector<double> all;
  double cpu_us = 0, span_s = 0;
  for (const std::vector<CallRecord>& clients : trials) {
    TrialSpan t = add_trial(clients, m, all, cpu_us);
    if (clients.empty()) continue;
    if (!m.offered_per_s) m.offered_per_s = offered(clients);
    if (t.ok) m.trial_means_us.push_back(t.sum_us / static_cast<double>(t.ok));
    span_s += static_cast<double>(t.last_end - t.first_start) / 1e9;
    m.start_skew_ms = std::max(m.start_skew_ms, static_cast<double>(t.last_start - t.first_start) / 1e6);
  }
  m.calls = all.size();
  if (all.empty()) return m;
  std::sort(all.begin(), all.end());
  m.p50_us = percentile_sorted(all, 50);
  m.p90_us = percentile_sorted(all, 90);
  m.p99_us = percentile_sorted(all, 99);
  m.p999_us = percentile_sorted(all, 99.9);
  m.max_us = all.back();
  fill_histogram(all, m);
  m.mean_us = std::accumulate(all.begin(), all.end(), 0.0) / static_cast<double>(all.size());
  m.trials = summarize(m.trial_means_us);
  // Levy timed a client's 100 calls; with calls back to back that is 100
  // times the mean call.
  m.seconds_per_100_calls = m.mean_us * 100 / 1e6;
  m.calls_per_s = span_s > 0 ? static_cast<double>(m.calls + m.errors) / span_s : 0;
  m.client_cpu_us_per_call = cpu_us / static_cast<double>(m.calls + m.errors);
  return m;
}

LatencyFigures SpeedMetrics::figures() const {
  LatencyFigures f;
  f.calls_measured = calls;
  f.errors = errors;
  f.p50_us = p50_us;
  f.p90_us = p90_us;
  f.p99_us = p99_us;
  f.p999_us = p999_us;
  f.max_us = max_us;
  f.mean_us = mean_us;
  f.trial_means_us = trial_means_us;
  f.mean_ci95_us = {trials.ci95_low, trials.ci95_high};
  f.seconds_per_100_calls = seconds_per_100_calls;
  f.calls_per_s = calls_per_s;
  f.offered_per_s = offered_per_s;
  f.start_skew_ms = start_skew_ms;
  f.latency_histogram = LatencyHistogram{kHistogramBucketsPerDecade, histogram_low_us, histogram_counts};
  return f;
}

}  // namespace rpclab::harness
