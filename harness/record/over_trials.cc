#include "harness/record/over_trials.h"

#include "harness/record/classes.h"
#include "harness/record/json_fields.h"

// A record's figures over trials were always written whole: a reader
// refuses one that lacks a field (ObjectReader::kStrict).
namespace rpclab::harness {
namespace {

using nlohmann::json;
using fields::ObjectReader;
using fields::ObjectWriter;
using fields::written;

template <typename Io, typename D>
void describe(Io& io, D& d) {
  io("tested", d.tested);
  if (!d.tested) {
    io("not_tested_because", fields::absent_ok(d.not_tested_because));
    return;
  }
  io("chi_square", d.chi_square);
  io("df", d.df);
  io("index", d.index);
  io("p_value", d.p_value);
  io("far_beyond_binomial", d.far_beyond_binomial);
}

template <typename Io, typename B>
void describe_bootstrap(Io& io, B& b) {
  io("method", written("two-stage cluster bootstrap (trials, then clients), percentile"));
  io("ci95_low", b.low_per_million);
  io("ci95_high", b.high_per_million);
  io("seed", b.seed);
  io("resamples", b.resamples);
}

template <typename Io, typename O>
void describe_over(Io& io, O& o) {
  io("trials", o.trials);
  io("trials_with_events", o.trials_with_events);
  io("trials_with_events_ci95", o.trials_with_events_ci95);
  io("trials_with_events_method", written("clopper-pearson"));
  io("events", o.events);
  io("calls", o.calls);
  io("pooled_per_million", o.pooled);
  io("per_trial_per_million", o.per_trial_per_million);
  io("median_per_million", o.median_per_million);
  io("min_per_million", o.min_per_million);
  io("max_per_million", o.max_per_million);
  io("bootstrap_per_million", o.bootstrap);
  io("between_trials", o.between_trials);
  io("between_clients", o.between_clients);
}

template <typename Io, typename F>
void describe_figures(Io& io, F& f) {
  io("silent", f.silent);
  io("duplicate_calls", f.duplicate_calls);
  io("extra_executions", f.extra_executions);
}

}  // namespace

// [low, high]
void to_json(json& j, const Interval& i) { j = json::array({i.low, i.high}); }
void from_json(const json& j, Interval& i) { i = {j.at(0).get<double>(), j.at(1).get<double>()}; }

void to_json(json& j, const Dispersion& d) {
  ObjectWriter out(j);
  describe(out, d);
}

void from_json(const json& j, Dispersion& d) {
  d = Dispersion{};
  ObjectReader in(j, ObjectReader::kStrict);
  describe(in, d);
}

void to_json(json& j, const BootstrapInterval& b) {
  ObjectWriter out(j);
  describe_bootstrap(out, b);
}

void from_json(const json& j, BootstrapInterval& b) {
  b = BootstrapInterval{};
  ObjectReader in(j, ObjectReader::kStrict);
  describe_bootstrap(in, b);
}

void to_json(json& j, const OverTrials& o) {
  ObjectWriter out(j);
  describe_over(out, o);
}

void from_json(const json& j, OverTrials& o) {
  o = OverTrials{};
  ObjectReader in(j, ObjectReader::kStrict);
  describe_over(in, o);
}

void to_json(json& j, const OverTrialsFigures& f) {
  ObjectWriter out(j);
  describe_figures(out, f);
}

void from_json(const json& j, OverTrialsFigures& f) {
  f = OverTrialsFigures{};
  ObjectReader in(j, ObjectReader::kStrict);
  describe_figures(in, f);
}

}  // namespace rpclab::harness
