#include "harness/record/trial_record.h"

#include "harness/record/json_fields.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using fields::ObjectReader;
using fields::ObjectWriter;

template <typename Io, typename D>
void describe_dependability(Io& io, D& d) {
  io("calls_planned", d.calls_planned);
  io("topology_place", d.topology_place);
  io("events", d.events);
  io("warnings", d.warnings);
  io("remote_server", d.remote_server);
  io("faults", d.faults);
  io.group(d.classes, [&io](auto& c) {  // the classes object, and beside it its calls and Levy's mismatches
    io("classes", c);
    io("calls", c.calls);
    io("levy_mismatches", c.levy_mismatches);
  });
  io("counts", d.counts);
  io("episodes", d.episodes);
  io("causes", d.causes);
  io("load", d.load);
  io("client_wall_s", d.client_wall_s);
  io("calls_per_s", d.calls_per_s);
  io("phases_s", d.phases_s);
  io("guest", d.guest);
  io("path", d.path);
}

template <typename Io, typename S>
void describe_speed(Io& io, S& s) {
  io("latency_pinned", s.latency_pinned);
  describe_latency(io, s.latency);
  io("start_barrier_ms", s.start_barrier_ms);
  io("start_by", s.start_by);
  io("clients_kept", s.clients_kept);
  io("client_cpu_us", s.client_cpu_us);
  io("calls_served", s.calls_served);
  io("echo_served", s.echo_served);
  io("server_cpu_us", s.server_cpu_us);
  io("server_cpu_from", s.server_cpu_from);
  io("proxy_cpu_us", s.proxy_cpu_us);
  io("wire", s.wire);
  io("calibration", s.calibration);
  io("sockperf_message_size", s.sockperf_message_size);
}

template <typename Io, typename N>
void describe_nfs(Io& io, N& n) {
  io("nfs_server", n.server);
  io("nfs_client", n.client);
  io("mount_options", n.mount_options);
  io("classes", n.classes);
  io("classes_by_op", n.classes_by_op);
  io("counts", n.counts);
  io("told", n.told);
  io("server_end", n.server_end);
  io("server_counters", n.server_counters);
  io("reply_cache_hits", n.reply_cache_hits);
  io("faults", n.faults);
  io("client_exits", n.client_exits);
  io("client_wall_s", n.client_wall_s);
  io("restart", n.restart);
  io("events", n.events);
  io("warnings", n.warnings);
  io("events_not_met", n.events_not_met);
  io("speed", n.speed);
  io("latency_pinned", n.latency_pinned);
}

// What a cell's `per_trial` leaves out: the cell says it once.
template <typename Io, typename T>
void describe_identity(Io& io, T& t) {
  io("version", t.version);
  io("record", fields::written("trial"));
  io("experiment", t.experiment);
  io("run_id", t.run_id);
  io("cell", t.cell);
  io("label", t.label);
  io("cell_index", t.cell_index);
  io("trials", t.trials);
}

// The fields of every trial, nested in a cell or not, and what it measured.
template <typename Io, typename T>
void describe_measured(Io& io, T& t) {
  io("trial", t.trial);
  io("trial_dir", t.trial_dir);
  io("status", t.status);
  io("reason", t.reason);
  io("started_at", t.started_at);
  io("ended_at", t.ended_at);
  io("wall_s", t.wall_s);
  io("hosts", t.hosts);
  io("settings", t.settings);
  if (t.experiment == "dependability") describe_dependability(io, t.dependability);
  if (t.experiment == "speed") describe_speed(io, t.speed);
  if (t.experiment == "nfs") describe_nfs(io, t.nfs);
}

template <typename Io, typename P>
void describe_phases(Io& io, P& p) {
  io("link_and_server", p.link_and_server);
  io("load_settle", p.load_settle);
  io("clients", p.clients);
  io("teardown_and_join", p.teardown_and_join);
}

template <typename Io, typename G>
void describe_guest(Io& io, G& g) {
  io("boot_ms", g.boot_ms);
  io("total_ms", g.total_ms);
  io("cpus", g.cpus);
  io("note", g.note);
}

}  // namespace

void to_json(json& j, const RecordedCell& c) { j = c.identity; }

void from_json(const json& j, RecordedCell& c) {
  c.identity = j;
  c.config = CellConfig::from_json(j);
}

void to_json(json& j, const TrialPhases& p) {
  ObjectWriter out(j);
  describe_phases(out, p);
}

void from_json(const json& j, TrialPhases& p) {
  p = TrialPhases{};
  ObjectReader in(j);
  describe_phases(in, p);
}

void to_json(json& j, const GuestFacts& g) {
  ObjectWriter out(j);
  describe_guest(out, g);
}

void from_json(const json& j, GuestFacts& g) {
  g = GuestFacts{};
  ObjectReader in(j);
  describe_guest(in, g);
}

TrialRecord TrialRecord::begin(const CellConfig& cell, size_t cell_index, uint32_t trial, uint32_t trials,
                               const std::string& dir, const std::string& run_id) {
  TrialRecord t;
  t.experiment = cell.experiment;
  t.run_id = run_id;
  t.cell = RecordedCell::of(cell);
  t.label = cell.label();
  t.cell_index = cell_index;
  t.trial = trial;
  t.trials = trials;
  t.trial_dir = dir;
  return t;
}

void to_json(json& j, const TrialRecord& t) {
  ObjectWriter out(j);
  describe_identity(out, t);
  describe_measured(out, t);
  j.update(t.other);
}

void from_json(const json& j, TrialRecord& t) {
  t = TrialRecord{};
  ObjectReader in(j);
  if (!in.has("trial")) throw std::invalid_argument("not a trial's record: it names no trial");
  describe_identity(in, t);
  describe_measured(in, t);
  t.other = in.rest();
}

json per_trial_json(const TrialRecord& t) {
  json j = json::object();
  ObjectWriter out(j);
  describe_measured(out, t);
  j.update(t.other);
  return j;
}

TrialRecord trial_in_cell(const json& j, const TrialRecord& identity) {
  TrialRecord t = identity;
  ObjectReader in(j);
  describe_measured(in, t);
  t.other = in.rest();
  return t;
}

}  // namespace rpclab::harness
