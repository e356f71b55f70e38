#include "harness/record/nfs_figures.h"

#include "harness/record/json_fields.h"

namespace rpclab::harness {
namespace {

template <typename Io, typename C>
void describe_counts(Io& io, C& c) {
  io("calls", c.calls);
  io("correct", c.correct);
  io("replayed_told_failure", c.replayed_told_failure);
  io("replayed_told_success", c.replayed_told_success);
  io("lost", c.lost);
  io("indeterminate", c.indeterminate);
  io("clean_failure", c.clean_failure);
  io("not_judged", c.not_judged);
}

template <typename Io, typename E>
void describe_event_step(Io& io, E& e) {
  io("what", e.what);
  io("at_ms", e.at_ms);
  io("server_counters", e.server_counters);
  io("link", e.link);
  io("note", e.note);
}

template <typename Io, typename R>
void describe_restart(Io& io, R& r) {
  io("client", r.client);
  io("step", r.step);
  io("name", r.name);
  io("transport", r.transport);
  io("events", r.events);
  io("told", r.told);
  io("class", r.step_class);
  io("cause", r.cause);
  io("why_no_replay", r.why_no_replay);
}

template <typename Io, typename S>
void describe_op_speed(Io& io, S& s) {
  io("op", s.op);
  io("mount_options", s.mount_options);
  io("warmup_calls", s.warmup_calls);
  io("calls", s.calls);
  io("errors", s.errors);
  io("loop_s", s.loop_s);
  io("ops_per_s", s.ops_per_s);
  io("p50_us", s.p50_us);
  io("p99_us", s.p99_us);
  io("server_count", s.server_count);
  io("server_counter", s.server_counter);
  io("reached_server", s.reached_server);
  io("evidence", s.evidence);
}

template <typename Io, typename O>
void describe_over_trials(Io& io, O& o) {
  io("trials", o.trials);
  io("mean", o.mean);
  io("ci95_low", o.ci95_low);
  io("ci95_high", o.ci95_high);
}

template <typename Io, typename S>
void describe_op_speed_cell(Io& io, S& s) {
  io("op", s.op);
  io("mount_options", s.mount_options);
  io("trials", s.trials);
  io("calls", s.calls);
  io("errors", s.errors);
  io("calls_made", s.calls_made);
  io("server_count", s.server_count);
  io("server_counter", s.server_counter);
  io("p50_us", s.p50_us);
  io("p99_us", s.p99_us);
  io("ops_per_s", s.ops_per_s);
  io("withheld", s.withheld);
}

template <typename Io, typename E>
void describe_export_entry(Io& io, E& e) {
  io("kind", e.kind);
  io("size", e.size);
  io("links", e.links);
}

}  // namespace

void to_json(nlohmann::json& j, const NfsOpSpeed& s) {
  j = nlohmann::json::object();
  fields::ObjectWriter out(j);
  describe_op_speed(out, s);
}

void from_json(const nlohmann::json& j, NfsOpSpeed& s) {
  s = NfsOpSpeed{};
  fields::ObjectReader in(j);
  describe_op_speed(in, s);
}

void to_json(nlohmann::json& j, const NfsOverTrials& o) {
  j = nlohmann::json::object();
  fields::ObjectWriter out(j);
  describe_over_trials(out, o);
}

void from_json(const nlohmann::json& j, NfsOverTrials& o) {
  o = NfsOverTrials{};
  fields::ObjectReader in(j);
  describe_over_trials(in, o);
}

void to_json(nlohmann::json& j, const NfsOpSpeedCell& s) {
  j = nlohmann::json::object();
  fields::ObjectWriter out(j);
  describe_op_speed_cell(out, s);
}

void from_json(const nlohmann::json& j, NfsOpSpeedCell& s) {
  s = NfsOpSpeedCell{};
  fields::ObjectReader in(j);
  describe_op_speed_cell(in, s);
}

void to_json(nlohmann::json& j, const NfsExportEntry& e) {
  j = nlohmann::json::object();
  fields::ObjectWriter out(j);
  describe_export_entry(out, e);
}

void from_json(const nlohmann::json& j, NfsExportEntry& e) {
  e = NfsExportEntry{};
  fields::ObjectReader in(j);
  describe_export_entry(in, e);
}

void to_json(nlohmann::json& j, const NfsEventStep& e) {
  j = nlohmann::json::object();
  fields::ObjectWriter out(j);
  describe_event_step(out, e);
}

void from_json(const nlohmann::json& j, NfsEventStep& e) {
  e = NfsEventStep{};
  fields::ObjectReader in(j);
  describe_event_step(in, e);
}

void to_json(nlohmann::json& j, const NfsRestart& r) {
  j = nlohmann::json::object();
  fields::ObjectWriter out(j);
  describe_restart(out, r);
}

void from_json(const nlohmann::json& j, NfsRestart& r) {
  r = NfsRestart{};
  fields::ObjectReader in(j);
  describe_restart(in, r);
}

std::string class_name(NfsClass c) {
  switch (c) {
    case NfsClass::kCorrect: return "correct";
    case NfsClass::kReplayedToldFailure: return "replayed_told_failure";
    case NfsClass::kLost: return "lost";
    case NfsClass::kIndeterminate: return "indeterminate";
    case NfsClass::kCleanFailure: return "clean_failure";
    case NfsClass::kNotJudged: return "not_judged";
    case NfsClass::kReplayedToldSuccess: return "replayed_told_success";
  }
  return "?";
}

void NfsClassCounts::add(NfsClass c) {
  ++calls;
  switch (c) {
    case NfsClass::kCorrect: ++correct; break;
    case NfsClass::kReplayedToldFailure: ++replayed_told_failure; break;
    case NfsClass::kLost: ++lost; break;
    case NfsClass::kIndeterminate: ++indeterminate; break;
    case NfsClass::kCleanFailure: ++clean_failure; break;
    case NfsClass::kNotJudged: ++not_judged; break;
    case NfsClass::kReplayedToldSuccess: ++replayed_told_success; break;
  }
}

NfsClassCounts& NfsClassCounts::operator+=(const NfsClassCounts& o) {
  calls += o.calls;
  correct += o.correct;
  replayed_told_failure += o.replayed_told_failure;
  replayed_told_success += o.replayed_told_success;
  lost += o.lost;
  indeterminate += o.indeterminate;
  clean_failure += o.clean_failure;
  not_judged += o.not_judged;
  return *this;
}

void to_json(nlohmann::json& j, const NfsClassCounts& c) {
  j = nlohmann::json::object();
  fields::ObjectWriter out(j);
  describe_counts(out, c);
}

void from_json(const nlohmann::json& j, NfsClassCounts& c) {
  c = NfsClassCounts{};
  fields::ObjectReader in(j);
  describe_counts(in, c);
}

ClientTrialCounts client_counts(uint32_t client_id, const NfsClassCounts& c) {
  ClientTrialCounts k;
  k.client_id = client_id;
  k.calls = c.judged();
  k.silent = c.silent();
  k.duplicate_calls = c.replayed();
  k.extra_executions = c.replayed();
  return k;
}

}  // namespace rpclab::harness
