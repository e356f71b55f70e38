#include "harness/record/speed_figures.h"

#include "harness/record/json_fields.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using fields::ObjectReader;
using fields::ObjectWriter;

template <typename Io, typename H>
void describe_histogram(Io& io, H& h) {
  io("buckets_per_decade", h.buckets_per_decade);
  io("low_us", h.low_us);
  io("counts", h.counts);
}

template <typename Io, typename L>
void latency_fields(Io& io, L& l) {
  io("calls_measured", l.calls_measured);
  io("errors", l.errors);
  io("p50_us", l.p50_us);
  io("p90_us", l.p90_us);
  io("p99_us", l.p99_us);
  io("p999_us", l.p999_us);
  io("max_us", l.max_us);
  io("mean_us", l.mean_us);
  io("trial_means_us", l.trial_means_us);
  io("mean_ci95_us", l.mean_ci95_us);
  io("seconds_per_100_calls", l.seconds_per_100_calls);
  io("calls_per_s", l.calls_per_s);
  io("offered_per_s", l.offered_per_s);
  io("start_skew_ms", l.start_skew_ms);
  io("latency_histogram", l.latency_histogram);
}

template <typename Io, typename C>
void describe_cpu(Io& io, C& c) {
  io("client", c.client);
  io("server", c.server);
  io("server_from", c.server_from);
  io("proxy", c.proxy);
}

template <typename Io, typename W>
void describe_counts(Io& io, W& w) {
  io("bytes", w.bytes);
  io("packets", w.packets);
  io("tx_bytes", w.tx_bytes);
  io("tx_packets", w.tx_packets);
  io("rx_bytes", w.rx_bytes);
  io("rx_packets", w.rx_packets);
}

template <typename Io, typename W>
void describe_per_call(Io& io, W& w) {
  io("bytes_per_call", w.bytes_per_call);
  io("packets_per_call", w.packets_per_call);
}

// Each way, when the trials counted each way: all five or none.
template <typename Io, typename E>
void describe_each_way(Io& io, E& e) {
  io("request_frame_bytes_per_call", e.request_frame_bytes_per_call);
  io("response_frame_bytes_per_call", e.response_frame_bytes_per_call);
  io("request_bytes_per_call", e.request_bytes_per_call);
  io("response_bytes_per_call", e.response_bytes_per_call);
  io("frame_overhead_bytes", e.frame_overhead_bytes);
}

template <typename Io, typename W>
void describe_welch(Io& io, W& w) {
  io("t", w.t);
  io("df", w.df);
  io("p", w.p);
  io("significant_at_0_01", w.significant_at_0_01);
}

}  // namespace

void to_json(json& j, const LatencyHistogram& h) {
  ObjectWriter out(j);
  describe_histogram(out, h);
}

void from_json(const json& j, LatencyHistogram& h) {
  h = LatencyHistogram{};
  ObjectReader in(j);
  describe_histogram(in, h);
}

void describe_latency(ObjectWriter& record, const LatencyFigures& f) { latency_fields(record, f); }
void describe_latency(ObjectReader& record, LatencyFigures& f) { latency_fields(record, f); }

void to_json(json& j, const CpuPerCall& c) {
  ObjectWriter out(j);
  describe_cpu(out, c);
}

void from_json(const json& j, CpuPerCall& c) {
  ObjectReader in(j, ObjectReader::kStrict);
  describe_cpu(in, c);
}

void to_json(json& j, const WireCounts& w) {
  ObjectWriter out(j);
  describe_counts(out, w);
}

void from_json(const json& j, WireCounts& w) {
  w = WireCounts{};
  ObjectReader in(j);
  describe_counts(in, w);
}

void to_json(json& j, const WirePerCall& w) {
  ObjectWriter out(j);
  describe_per_call(out, w);
  if (w.each_way) describe_each_way(out, *w.each_way);
}

void from_json(const json& j, WirePerCall& w) {
  w = WirePerCall{};
  ObjectReader in(j);
  describe_per_call(in, w);
  WirePerCall::EachWay e;
  ObjectReader each_way(j);
  describe_each_way(each_way, e);
  if (each_way.found()) w.each_way = e;  // trials before the split counted both ways together
}

void to_json(json& j, const WelchVsFloor& w) {
  ObjectWriter out(j);
  describe_welch(out, w);
}

void from_json(const json& j, WelchVsFloor& w) {
  ObjectReader in(j, ObjectReader::kStrict);
  describe_welch(in, w);
}

}  // namespace rpclab::harness
