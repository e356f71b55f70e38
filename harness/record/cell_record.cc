#include "harness/record/cell_record.h"

#include <sys/utsname.h>

#include "harness/record/json_fields.h"
#include "netem/spec/fault_fields.h"
#include "transport/settings_table.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using fields::ObjectReader;
using fields::ObjectWriter;

// A stable section a cell that did not run has no value for: each of its
// figures null (keep_stable_fields). Read back, it is null.
json nulls(std::initializer_list<const char*> keys) {
  json j = json::object();
  for (const char* k : keys) j[k] = nullptr;
  return j;
}

bool nothing_in(const json& j, const char* section, const char* figure) {
  auto it = j.find(section);
  return it != j.end() && it->is_object() && it->contains(figure) && it->at(figure).is_null();
}

template <typename T>
void put_stable(json& j, const char* key, const MaybeNull<T>& v, std::initializer_list<const char*> figures) {
  if (v.present && !v.has_value())
    j[key] = nulls(figures);
  else
    fields::put(j, key, v);
}

template <typename T>
void take_stable(ObjectReader& in, const char* key, MaybeNull<T>& v, const char* first_figure) {
  if (!nothing_in(in.object(), key, first_figure)) return in(key, v);
  json nulls_of_a_cell_that_did_not_run;
  in(key, nulls_of_a_cell_that_did_not_run);
  v = MaybeNull<T>::null();
}

// The classes object, and beside it its calls and Levy's mismatches.
template <typename Io, typename C>
void describe_classes(Io& io, C& c) {
  io("classes", c);
  io("calls", c.calls);
  io("levy_mismatches", c.levy_mismatches);
}

template <typename Io, typename N>
void describe_nfs(Io& io, N& n) {
  io("nfs_server", n.server);
  io("classes", n.classes);
  io("classes_by_op", n.classes_by_op);
  io("over_trials", n.over_trials);
  io("server_ends", n.server_ends);
  io("reply_cache_hits", n.reply_cache_hits);
  io("faults", n.faults);
  io("client_wall_s", n.client_wall_s);
  io("speed", n.speed);
  io("latency_pinned", n.latency_pinned);
}

template <typename Io, typename D>
void describe_dependability(Io& io, D& d) {
  io("calls_planned", d.calls_planned);
  io("retry_policy", d.retry_policy);
  io("at_most_once", d.at_most_once);
  io("topology_place", d.topology_place);
  io("rates_per_million", d.rates_per_million);
  io("over_trials", d.over_trials);
  io("causes", d.causes);
  io("episodes", d.episodes);
  io("load", d.load);
  io("faults", d.faults);
  io("client_wall_s", d.client_wall_s);
  io("calls_per_s", d.calls_per_s);
  io("events", d.events);
  io("path", d.path);
}

const std::initializer_list<const char*> kStableClasses = {
    "correct", "silent_loss", "duplicate_calls", "extra_executions", "silent_duplicates", "indeterminate",
    "clean_failure"};

void put_dependability(ObjectWriter& out, json& j, const DependabilityCell& d) {
  describe_dependability(out, d);
  for (const auto& [name, value] : d.top_level_settings) out(name.c_str(), value);
  if (d.classes.has_value()) {
    describe_classes(out, *d.classes);
  } else if (d.classes.present) {  // a cell that did not run
    j["calls"] = j["levy_mismatches"] = nullptr;
    j["classes"] = nulls(kStableClasses);
  }
  put_stable(j, "silent_per_million", d.silent_per_million, {"value", "ci95_low", "ci95_high"});
}

void take_dependability(ObjectReader& in, DependabilityCell& d) {
  describe_dependability(in, d);
  for (const TransportSetting* s : top_level_settings()) {
    std::string name(s->name);
    if (!in.object().contains(name)) continue;
    json value;  // null stays null: a cell that did not run
    in(name.c_str(), value);
    d.top_level_settings[name] = value;
  }
  ClassCounts classes;
  bool did_not_run = nothing_in(in.object(), "classes", *kStableClasses.begin());
  describe_classes(in, classes);
  if (did_not_run)
    d.classes = MaybeNull<ClassCounts>::null();
  else if (in.object().contains("classes"))
    d.classes = classes;
  take_stable(in, "silent_per_million", d.silent_per_million, "value");
}

template <typename Io, typename S>
void describe_speed(Io& io, S& s) {
  io("size", s.size);
  io("op", s.op);
  io("calls_per_trial", s.calls_per_trial);
  io("warmup", s.warmup);
  io("latency_pinned", s.latency_pinned);
  describe_latency(io, s.latency);
  io("wire", s.wire);
  io("floor_transport", s.floor_transport);
  io("ratio_to_floor", s.ratio_to_floor);
  io("welch_vs_floor", s.welch_vs_floor);
  io("ratio_to_sockperf", s.ratio_to_sockperf);
  io("calibration", s.calibration);
  io("sockperf_message_size", s.sockperf_message_size);
}

template <typename Io, typename R>
void describe_common(Io& io, R& r) {
  io("version", r.version);
  io("experiment", r.experiment);
  io("run_id", r.run_id);
  io("cell", r.cell);
  io("label", r.label);
  io("transport", r.transport);
  io("topology", r.topology);
  io("connect", r.connect);
  io("clients", r.clients);
  io("library", r.library);
  io("timeout_ms", r.timeout_ms);
  io("timeout_is_default", r.timeout_is_default);
  io("kernel", r.kernel);
  io("status", r.status);
  io("reason", r.reason);
  io("cell_index", r.cell_index);
  io("cell_dir", r.cell_dir);
  io("started_at", r.started_at);
  io("ended_at", r.ended_at);
  io("wall_s", r.wall_s);
  io("trials", r.trials);
  io("trials_ok", r.trials_ok);
  io("trials_failed", r.trials_failed);
  io("settings", r.settings);
}

template <typename Io, typename F>
void describe_failed(Io& io, F& f) {
  io("trial", f.trial);
  io("reason", f.reason);
}

}  // namespace

const std::vector<const TransportSetting*>& top_level_settings() {
  static const std::vector<const TransportSetting*> rows = [] {
    std::vector<const TransportSetting*> r;
    for (const TransportSetting* s : all_settings())
      if (s->in_every_cell && (s->matrices & kDependabilityMatrix)) r.push_back(s);
    return r;
  }();
  return rows;
}

template <typename T>
void null_if_absent(MaybeNull<T>& field) {
  if (!field.present) field = MaybeNull<T>::null();
}

void keep_stable_fields(CellRecord& r) {
  const CellConfig& cell = r.cell.config;
  if (r.is("dependability")) {
    DependabilityCell& d = r.dependability;
    null_if_absent(d.classes);
    for (const TransportSetting* s : top_level_settings()) d.top_level_settings.try_emplace(std::string(s->name));
    null_if_absent(d.silent_per_million);
    if (!d.faults) {
      d.faults = CellFaults{};
      d.faults->backend = netem::is_empty(cell.faults) ? "none" : "not chosen";
    }
    if (!d.faults->loss_pct) d.faults->loss_pct = cell.faults.loss_pct;
    if (!d.faults->dup_pct) d.faults->dup_pct = cell.faults.dup_pct;
    null_if_absent(d.faults->measured_loss_pct);
    null_if_absent(d.faults->measured_dup_pct);
    if (!d.load) {
      d.load = CellLoad{};
      d.load->hogs = cell.hogs;
    }
    for (MaybeNull<double>* figure : {&d.load->loadavg_1m, &d.load->run_queue_mean, &d.load->server_cpu_run_queue,
                                      &d.load->server_wait_us_per_timeslice})
      null_if_absent(*figure);
  } else if (r.is("nfs")) {
    null_if_absent(r.nfs.classes);
  } else if (r.is("speed")) {
    SpeedCell& s = r.speed;
    null_if_absent(r.trials);
    null_if_absent(s.size);
    null_if_absent(s.calls_per_trial);
    null_if_absent(s.latency_pinned);
    null_if_absent(s.ratio_to_floor);
    null_if_absent(s.cpu_us_per_call);
    for (MaybeNull<double>* figure : {&s.latency.seconds_per_100_calls, &s.latency.p50_us, &s.latency.p90_us,
                                      &s.latency.p99_us, &s.latency.p999_us, &s.latency.max_us, &s.latency.calls_per_s})
      null_if_absent(*figure);
  }
}

void to_json(json& j, const FailedTrial& f) {
  ObjectWriter out(j);
  describe_failed(out, f);
}

void from_json(const json& j, FailedTrial& f) {
  f = FailedTrial{};
  ObjectReader in(j);
  describe_failed(in, f);
}

CellRecord CellRecord::begin(const CellConfig& cell, const std::string& run_id) {
  utsname u{};
  uname(&u);
  const TransportRow* row = find_transport(cell.transport);
  ClientSettings settings = row ? row->client_settings(cell.client_options()) : ClientSettings{};
  CellRecord r;
  r.experiment = cell.experiment;
  r.run_id = run_id;
  r.cell = RecordedCell::of(cell);
  r.label = cell.label();
  r.transport = cell.transport;
  r.topology = netem::topology_name(cell.topology);
  r.connect = connect_mode_name(cell.connect);
  r.clients = cell.clients;
  r.library = settings.library;
  r.timeout_ms = settings.timeout_ms;
  r.timeout_is_default = settings.timeout_is_default;
  r.kernel = std::string(u.sysname) + " " + u.release;
  return r;
}

void to_json(json& j, const CellRecord& r) {
  j = json::object();
  ObjectWriter out(j);
  describe_common(out, r);
  if (r.is("dependability")) put_dependability(out, j, r.dependability);
  if (r.is("nfs")) describe_nfs(out, r.nfs);
  if (r.is("speed")) {
    describe_speed(out, r.speed);
    put_stable(j, "cpu_us_per_call", r.speed.cpu_us_per_call, {"client", "server"});
  }
  if (r.per_trial) {
    json list = json::array();
    for (const TrialRecord& t : *r.per_trial) list.push_back(per_trial_json(t));
    j["per_trial"] = list;
  }
  j.update(r.other);
}

void from_json(const json& j, CellRecord& r) {
  r = CellRecord{};
  ObjectReader in(j);
  describe_common(in, r);
  if (r.is("dependability")) take_dependability(in, r.dependability);
  if (r.is("nfs")) describe_nfs(in, r.nfs);
  if (r.is("speed")) {
    describe_speed(in, r.speed);
    take_stable(in, "cpu_us_per_call", r.speed.cpu_us_per_call, "client");
  }
  json per_trial;
  in("per_trial", per_trial);
  if (per_trial.is_array()) {
    TrialRecord identity;
    identity.version = r.version;
    identity.experiment = r.experiment;
    identity.run_id = r.run_id;
    identity.cell = r.cell;
    identity.label = r.label;
    identity.cell_index = r.cell_index;
    identity.trials = r.trials.value_or(1);
    r.per_trial.emplace();
    for (const json& t : per_trial) r.per_trial->push_back(trial_in_cell(t, identity));
  }
  r.other = in.rest();
}

}  // namespace rpclab::harness
