#include "harness/speed/speed_experiment.h"

#include <fmt/format.h>

#include <memory>

#include "common/cli_support.h"
#include "transport/transport.h"
#include "harness/paths/path_table.h"
#include "harness/run/latency_pin.h"
#include "harness/run/setting_axes.h"
#include "harness/speed/speed_matrix.h"
#include "harness/speed/speed_report.h"
#include "harness/speed/speed_rows.h"
#include "harness/speed/speed_session.h"
#include "harness/speed/speed_summary.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

struct Flags {
  std::string preset = "levy1989";
  std::string workload;  // "": the preset's own (echo, or NEXT for paths)
  std::vector<std::string> transports, topologies, connects, paths;
  std::vector<int> replicas;
  std::vector<size_t> sizes;
  std::vector<int> clients;
  std::vector<double> rates;
  int trials = 0, timeout_ms = 0;
  uint64_t calls_per_trial = 0, warmup = 0;
  SettingFlags settings;
  bool calibrate = true;
};

SpeedAxes axes(const Flags& f, bool root) {
  SpeedAxes a = speed_preset(f.preset);
  // A workload named on the command line replaces the preset's; a preset
  // that measures something else than echo (paths: NEXT, which the
  // at-most-once table guards) keeps its own otherwise.
  if (!f.workload.empty()) find_speed_workload(f.workload)->apply(a);
  // The two-host link is where the bytes are counted; without root there
  // are no namespaces, so the workload runs on loopback, without them.
  if (!root && f.topologies.empty() && a.topologies == std::vector<netem::TopologyKind>{netem::TopologyKind::kTwoHost}) {
    std::fprintf(stderr, "rpclab speed: not root: the %s workload runs on loopback, and no bytes on the wire are "
                 "counted (run as root for the two-host link)\n", workload_of(a.ops.front()).c_str());
    a.topologies = {netem::TopologyKind::kLoopback};
  }
  if (!f.transports.empty()) {
    for (const std::string& t : f.transports)
      if (!find_transport(t)) throw std::invalid_argument("--transports: unknown transport '" + t + "' (known: " +
                                                          transport_names() + ")");
    a.transports = f.transports;
  }
  if (!f.sizes.empty()) a.sizes = f.sizes;
  if (!f.clients.empty()) a.clients = f.clients;
  if (!f.topologies.empty()) {
    a.topologies.clear();
    for (const std::string& t : f.topologies) a.topologies.push_back(*netem::parse_topology(t));
  }
  if (!f.connects.empty()) {
    a.connects.clear();
    for (const std::string& c : f.connects) a.connects.push_back(*parse_connect_mode(c));
  }
  if (f.trials) a.trials = f.trials;
  if (f.calls_per_trial) a.calls_per_trial = f.calls_per_trial, a.seconds_per_trial = 0;  // as given, at every rate
  if (!f.rates.empty()) a.rates = f.rates;
  if (f.warmup) a.warmup = f.warmup, a.warmup_bytes = 0;  // as given, at every size
  if (f.timeout_ms) a.timeout_ms = f.timeout_ms;
  if (!f.paths.empty()) {
    for (const std::string& p : f.paths)
      if (!find_path(p)) throw std::invalid_argument("--paths: unknown path '" + p + "' (known: " + path_names() + ")");
    a.paths = f.paths;
  }
  if (!f.replicas.empty()) a.replicas = f.replicas;
  a.settings.override_with(setting_axes(f.settings));
  a.calibrate = a.calibrate && f.calibrate;  // a workload without sockperf (allman) stays without
  return a;
}

class SpeedFlags : public ExperimentFlags {
 public:
  explicit SpeedFlags(CLI::App& cmd);
  Plan plan(const PlanContext& context) override;
  std::unique_ptr<RunHold> prepare(CellEnvironment& env, RunMetadata& metadata) override;

 private:
  Flags f;
};

SpeedFlags::SpeedFlags(CLI::App& cmd) {
  cmd.add_option("--preset", f.preset, speed_presets_help())
      ->check(CLI::IsMember(speed_preset_names()))
      ->capture_default_str();
  cmd.add_option("--workload", f.workload, "what each call is: " + speed_workload_names() +
                  " (allman: Allman's four operations, --sizes as N doubles, default 50,500,5000,50000; "
                  "kiraly: Kiraly's record, --sizes as its photo's bytes, default 0,1048576; docs/speed.md; "
                  "default: the preset's, echo but for paths, next)")
      ->check([](const std::string& w) {
        return find_speed_workload(w) ? std::string() : "one of: " + speed_workload_names();
      });
  cmd.add_option("--transports", f.transports, "comma-separated transports: " + transport_names())->delimiter(',');
  cmd.add_option("--sizes", f.sizes, "payload bytes, e.g. 12,512,8192; with --workload allman, N doubles; kiraly, photo bytes")->delimiter(',')
      ->check(in_range(size_t{0}, size_t{16} << 20));
  cmd.add_option("--clients", f.clients, "parallel clients, e.g. 1,2,4")->delimiter(',')->check(in_range(1, 64));
  cmd.add_option("--topologies", f.topologies, "loopback,two-host")->delimiter(',')
      ->check(CLI::IsMember({"loopback", "two-host"}));
  cmd.add_option("--connect", f.connects, "per-call,persistent")->delimiter(',')
      ->check(CLI::IsMember({"persistent", "per-call"}));
  cmd.add_option("--rates,--rate", f.rates,
                 "open loop: each client's calls per second, e.g. 1000,5000 (one cell each; 0 = closed loop, the "
                 "default); latency is taken from when each call was due")
      ->delimiter(',')->check(in_range(0.0, 1e9));
  cmd.add_option("--paths", f.paths, "through a path: " + path_names() +
                  " (harness/paths/, docs/paths.md; needs root); a path that cannot carry a transport is left out")
      ->delimiter(',');
  cmd.add_option("--replicas", f.replicas, "replicas behind a path's proxy or balancing client (default 2)")
      ->delimiter(',')->check(in_range(1, 8));
  cmd.add_option("--trials", f.trials, "trials per cell (default 10)")->check(in_range(1, 1000));
  cmd.add_option("--calls-per-trial", f.calls_per_trial, "calls per client per trial (default 100)")
      ->check(in_range(uint64_t{1}, uint64_t{1} << 24));
  cmd.add_option("--warmup", f.warmup,
                 "unrecorded calls per client first (default 20; levy1989's make at most half a trial's bytes, "
                 "at least 2 calls)")
      ->check(in_range(uint64_t{1}, uint64_t{1} << 24));
  cmd.add_option("--timeout", f.timeout_ms, "total time per call in ms (default 10000)")->check(in_range(1, 3600000));
  add_setting_axis_flags(&cmd, kSpeedMatrix, &f.settings);  // --tcp-nodelay, --udp-bufsize: from the rows
  // Two flags, not CLI11's "--calibrate,!--no-calibrate", whose help line
  // reads "--calibrate,--no-calibrate{false}".
  bool* calibrate = &f.calibrate;
  cmd.add_flag_callback("--calibrate", [calibrate] { *calibrate = true; },
                        "sockperf ping-pong at the same sizes, in the same run (the default; skipped with the reason "
                        "when sockperf is not installed)");
  cmd.add_flag_callback("--no-calibrate", [calibrate] { *calibrate = false; }, "no sockperf ping-pong");
}

Plan SpeedFlags::plan(const PlanContext& context) {
  // Across two machines is Levy's "different machine": one topology.
  if (context.server_host) {
    if (f.topologies.empty()) f.topologies = {"two-host"};
    if (f.topologies != std::vector<std::string>{"two-host"})
      throw std::invalid_argument("with --server-host the server is on another machine: leave out --topologies (it "
                                  "is two-host)");
  }
  if (context.client_host)
    throw std::invalid_argument("--client-host runs dependability cells only yet: leave it out (the clients run here)");
  Plan plan;
  plan.cells = expand_speed(axes(f, context.root));
  plan.what = "preset " + f.preset;
  plan.metadata.preset = f.preset;
  plan.metadata.workload = f.workload.empty() ? workload_of(plan.cells.empty() ? "echo" : plan.cells.front().op)
                                              : f.workload;
  add_adapters_left_out(plan, f.transports.empty());
  return plan;
}

// /dev/cpu_dma_latency held at 0 while the run lasts.
std::unique_ptr<RunHold> SpeedFlags::prepare(CellEnvironment& env, RunMetadata& metadata) {
  return hold_latency_for_timing(env, metadata, "rpclab speed");
}

std::string latency_words(const LatencyFigures& l) {
  std::string words = fmt::format("p50 {:.1f} us, p99 {:.1f} us, {:.0f} calls/s", l.p50_us.value_or(0.0),
                                  l.p99_us.value_or(0.0), l.calls_per_s.value_or(0.0));
  return l.offered_per_s ? words + fmt::format(" of {:.0f} offered (latency from due)", *l.offered_per_s) : words;
}

}  // namespace

Experiment speed_experiment() {
  Experiment e;
  e.name = "speed";
  e.help = "what a call costs: Levy's timing table and percentiles";
  e.presets = [] {
    std::vector<PresetRow> rows;
    for (const SpeedPresetRow& p : speed_presets()) rows.push_back({p.name, p.summary});
    return rows;
  };
  e.add_flags = [](CLI::App& cmd) -> std::unique_ptr<ExperimentFlags> { return std::make_unique<SpeedFlags>(cmd); };
  e.schedule = [](const std::vector<CellConfig>& cells, uint64_t) { return trial_rounds(cells, speed_group); };
  // The session keeps the run's links and servers; the runner owns it.
  e.trial_runner = [](const std::string& run_dir, CellEnvironment& env) -> TrialRunner {
    auto session = std::make_shared<SpeedSession>(run_dir, env.latency_pinned);
    return [session](const CellConfig& cell, const TrialPlace& place, CellEnvironment& env, process::CommandLog& log,
                     TrialRecord& trial) { session->run_trial(cell, place, env, log, trial); };
  };
  // A speed trial is 100 calls of ~100 us: its record's fsync (2-24 ms on
  // this VM) and its lines' cost more than it does; a second's batch
  // costs a power cut at most a second of trials, which --resume runs again.
  e.sync_batch = std::chrono::seconds(1);
  e.cannot_run = speed_cannot_run;
  e.summarize = summarize_speed;
  e.tables = speed_tables();
  e.cell_figures = speed_cell_figures();
  e.plots = speed_plots;
  // noisy_percentiles: those the tables mark "~", space-separated ("" none).
  e.csv_columns = [](const CellRecord& r) {
    if (!r.speed.latency.p50_us) return nlohmann::json::object();
    return nlohmann::json{{"noisy_percentiles", fmt::format("{}", fmt::join(noisy_percentiles(r), " "))}};
  };
  e.noise = {noisy_at, kNoiseMark, noise_note()};
  e.trial_words = [](const TrialRecord& t) { return latency_words(t.speed.latency); };
  e.cell_words = [](const CellRecord& r) { return latency_words(r.speed.latency); };
  return e;
}

}  // namespace rpclab::harness
