// What a speed cell's call records say about a call's cost: exact
// percentiles, per-trial means, Levy's seconds per 100 calls, throughput and
// client CPU time. Pure functions of the records, so they are unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/call_record.h"
#include "harness/kit/stats.h"
#include "harness/record/speed_figures.h"

namespace rpclab::harness {

struct SpeedMetrics {
  uint64_t calls = 0;             // successful calls measured
  uint64_t errors = 0;            // calls that failed (not in the latency figures)
  double p50_us = 0, p90_us = 0, p99_us = 0, p999_us = 0, max_us = 0, mean_us = 0;
  std::vector<double> trial_means_us;  // one per trial, over every client's calls in it, in trial order
  Summary trials;                      // mean and 95% interval of the trial means
  double seconds_per_100_calls = 0;    // per client, as Levy timed it
  double calls_per_s = 0;              // all clients together: calls / the trials' spans (first start to last end)
  // Open loop (the records' rate_per_s): the clients' rates summed, and
  // every latency figure taken from each call's due time, not its start.
  std::optional<double> offered_per_s;
  double client_cpu_us_per_call = 0;
  double start_skew_ms = 0;            // how far apart the clients began, at most over the trials
  // Every successful call of every trial in logarithmic buckets (10 per
  // decade): the latency distribution report.html draws, kept in the record
  // so the views need nothing else. Only buckets with calls, ascending.
  std::vector<double> histogram_low_us;
  std::vector<uint64_t> histogram_counts;
  // As a cell's record holds them.
  LatencyFigures figures() const;
};

// A call's latency as the figures take it: from its start, or in an
// open-loop record from when it was due (start_ns - due + latency_ns; a
// call is never made before it is due, so never less than its own).
int64_t latency_from_due_ns(const CallRecord& record, size_t i);

// Each trial is its own run of the clients: `trials[t]` holds every
// client's call record of trial t.
SpeedMetrics speed_metrics(const std::vector<std::vector<CallRecord>>& trials);

inline constexpr int kHistogramBucketsPerDecade = 10;
// The lower edge of the bucket that holds `us` (at least 0.1 us).
double histogram_bucket_low(double us);

}  // namespace rpclab::harness
