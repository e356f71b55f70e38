#include "harness/record/classes.h"

#include "harness/record/json_fields.h"

namespace rpclab::harness {

using nlohmann::json;

ClassCounts& ClassCounts::operator+=(const ClassCounts& o) {
  calls += o.calls;
  correct += o.correct;
  silent_loss += o.silent_loss;
  duplicate_calls += o.duplicate_calls;
  extra_executions += o.extra_executions;
  silent_duplicates += o.silent_duplicates;
  indeterminate += o.indeterminate;
  clean_failure += o.clean_failure;
  unissued_executions += o.unissued_executions;
  levy_mismatches += o.levy_mismatches;
  unrecorded += o.unrecorded;
  if (clients_with_silent_errors || o.clients_with_silent_errors)
    clients_with_silent_errors = clients_with_silent_errors.value_or(0) + o.clients_with_silent_errors.value_or(0);
  for (const auto& [kind, n] : o.client_errors) client_errors[kind] += n;
  return *this;
}

namespace {

using fields::ObjectReader;
using fields::ObjectWriter;

template <typename Io, typename Counts>
void describe(Io& io, Counts& c) {
  io("correct", c.correct);
  io("silent_loss", c.silent_loss);
  io("duplicate_calls", c.duplicate_calls);
  io("extra_executions", c.extra_executions);
  io("silent_duplicates", c.silent_duplicates);
  io("indeterminate", c.indeterminate);
  io("clean_failure", c.clean_failure);
  io("unissued_executions", c.unissued_executions);
  io("unrecorded_executions", c.unrecorded);
  io("clients_with_silent_errors", c.clients_with_silent_errors);
  io("client_errors", c.client_errors);
}

template <typename Io, typename Rate>
void describe_rate(Io& io, Rate& r) {
  io("value", r.value);
  io("ci95_low", r.ci95_low);
  io("ci95_high", r.ci95_high);
  io("method", fields::absent_ok(r.method));
}

template <typename Io, typename Rates>
void describe_rates(Io& io, Rates& r) {
  io("silent_loss", r.silent_loss);
  io("silent_duplicates", r.silent_duplicates);
  io("duplicate_calls", r.duplicate_calls);
  io("indeterminate", r.indeterminate);
  io("levy_mismatches", r.levy_mismatches);
  io("extra_executions", r.extra_executions);
}

}  // namespace

void to_json(json& j, const ClassCounts& c) {
  ObjectWriter out(j);
  describe(out, c);
}

void from_json(const json& j, ClassCounts& c) {
  c = ClassCounts{};
  c.clients_with_silent_errors.reset();  // none in records before it was counted
  ObjectReader in(j);
  describe(in, c);
}

void to_json(json& j, const RatePerMillion& r) {
  ObjectWriter out(j);
  describe_rate(out, r);
}

void from_json(const json& j, RatePerMillion& r) {
  r = RatePerMillion{};
  ObjectReader in(j, ObjectReader::kStrict);
  describe_rate(in, r);
}

ClassRates ClassRates::of(const ClassCounts& c) {
  // Calls that ... are proportions of the calls; mismatches and extra
  // executions are counts that can exceed them (stats.h).
  return {proportion_per_million(c.silent_loss, c.calls),     proportion_per_million(c.silent_duplicates, c.calls),
          proportion_per_million(c.duplicate_calls, c.calls), proportion_per_million(c.indeterminate, c.calls),
          count_per_million(c.levy_mismatches, c.calls),      count_per_million(c.extra_executions, c.calls)};
}

void to_json(json& j, const ClassRates& r) {
  ObjectWriter out(j);
  describe_rates(out, r);
}

void from_json(const json& j, ClassRates& r) {
  r = ClassRates{};
  ObjectReader in(j);
  describe_rates(in, r);
}

}  // namespace rpclab::harness
