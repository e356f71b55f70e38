// What a speed trial or cell measured, as the records hold it: the
// latencies and throughput, the CPU and the bytes per call, and the
// comparisons with the floor and with sockperf. The figures sit at the
// record's top level (`p50_us`, `calls_per_s`, ...); docs/results-format.md,
// "Speed fields", says what each is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/maybe_null.h"

namespace rpclab::harness {

// Every successful call in logarithmic buckets: each bucket's lower edge
// (10^(i/buckets_per_decade) us, ascending, only buckets with calls) and
// its calls.
struct LatencyHistogram {
  int buckets_per_decade = 10;
  std::vector<double> low_us;
  std::vector<uint64_t> counts;
};
void to_json(nlohmann::json& j, const LatencyHistogram& h);
void from_json(const nlohmann::json& j, LatencyHistogram& h);

// The latency figures: a cell has them all (a calibration cell those
// sockperf gives), a trial a few.
// A cell's p50_us .. max_us, seconds_per_100_calls and calls_per_s are
// stable: null in a cell that did not run.
struct LatencyFigures {
  std::optional<uint64_t> calls_measured;  // successful calls in the figures
  std::optional<uint64_t> errors;          // failed calls, left out of them
  MaybeNull<double> p50_us, p90_us, p99_us, p999_us, max_us;
  std::optional<double> mean_us;
  std::optional<std::vector<double>> trial_means_us;       // each trial's mean
  std::optional<std::pair<double, double>> mean_ci95_us;   // Student-t, of the trial means
  MaybeNull<double> seconds_per_100_calls;                 // Levy's unit
  MaybeNull<double> calls_per_s;                           // all clients together
  // Open loop: the calls a second the clients were to make, all together
  // (their rate_per_s summed); the percentiles are then from each call's
  // due time and calls_per_s is what was achieved. Absent: closed loop.
  std::optional<double> offered_per_s;
  std::optional<double> start_skew_ms;                     // how far apart the clients began
  std::optional<LatencyHistogram> latency_histogram;
};
// Into and out of a record's top level, where the figures sit.
namespace fields {
class ObjectReader;
class ObjectWriter;
}  // namespace fields
void describe_latency(fields::ObjectWriter& record, const LatencyFigures& f);
void describe_latency(fields::ObjectReader& record, LatencyFigures& f);

// A cell's `cpu_us_per_call`.
struct CpuPerCall {
  double client = 0;  // the clients' user + system CPU per call made
  double server = 0;  // the server's per call it served
  // How the server's CPU was measured: absent, from its own stats file;
  // "proc", by the harness from /proc/<pid>/stat around the trial (an
  // adapter whose server writes none), per call the clients made.
  std::optional<std::string> server_from;
  // On a path with a proxy: the proxy's CPU (its workers included) per
  // call the replicas served; server is then the replicas' summed.
  std::optional<double> proxy;
};
void to_json(nlohmann::json& j, const CpuPerCall& c);
void from_json(const nlohmann::json& j, CpuPerCall& c);

// A trial's `wire`: the client's end of the two-host link, from its
// kernel counters before and after (tx: what it sent, rx: what it got).
struct WireCounts {
  uint64_t bytes = 0, packets = 0;
  uint64_t tx_bytes = 0, tx_packets = 0, rx_bytes = 0, rx_packets = 0;
};
void to_json(nlohmann::json& j, const WireCounts& w);
void from_json(const nlohmann::json& j, WireCounts& w);

// A cell's `wire`: bytes and packets per call the server ran; each way
// (frames, and the RPC's own bytes with the frame headers taken off) when
// the trials counted each way.
struct WirePerCall {
  double bytes_per_call = 0, packets_per_call = 0;
  struct EachWay {
    double request_frame_bytes_per_call = 0, response_frame_bytes_per_call = 0;
    double request_bytes_per_call = 0, response_bytes_per_call = 0;
    double frame_overhead_bytes = 0;
  };
  std::optional<EachWay> each_way;
};
void to_json(nlohmann::json& j, const WirePerCall& w);
void from_json(const nlohmann::json& j, WirePerCall& w);

// A cell's `welch_vs_floor`: Welch's t-test of its trial means against
// its floor's.
struct WelchVsFloor {
  double t = 0, df = 0, p = 1;
  bool significant_at_0_01 = false;
};
void to_json(nlohmann::json& j, const WelchVsFloor& w);
void from_json(const nlohmann::json& j, WelchVsFloor& w);

}  // namespace rpclab::harness
