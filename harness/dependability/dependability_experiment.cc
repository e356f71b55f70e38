#include "harness/dependability/dependability_experiment.h"

#include <fmt/format.h>

#include <iterator>
#include <memory>

#include "common/cli_support.h"
#include "transport/transport.h"
#include "harness/causes/wire_capture.h"
#include "harness/dependability/dependability_plots.h"
#include "harness/dependability/dependability_report.h"
#include "harness/dependability/dependability_summary.h"
#include "harness/dependability/dependability_trial.h"
#include "harness/dependability/matrix.h"
#include "harness/paths/path_table.h"
#include "harness/run/trial_stats.h"
#include "harness/kit/text_table.h"
#include "harness/run/setting_axes.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

struct Flags {
  std::string preset = "levy1989";
  std::vector<std::string> tables, transports, connect, retry_policies, at_most_once, paths;
  std::vector<int> loads, clients, replicas;
  SettingFlags settings;
  std::vector<double> loss, dup;
  std::string profile, topology, backend, direction;
  uint64_t calls = 0, fault_calls = 0;
  int timeout_ms = 0, trials = 0;
  double duration_s = 0;
  std::optional<uint64_t> shuffle_seed;
  bool no_pin = false, grpc_retry = false;
  std::string wire_capture = "on";
};

AxisOverrides overrides(const Flags& f) {
  AxisOverrides o;
  if (!f.tables.empty()) o.blocks = f.tables;
  if (!f.transports.empty()) o.transports = f.transports;
  if (!f.loads.empty()) o.hogs = f.loads;
  if (!f.loss.empty()) o.loss_pct = f.loss;
  if (!f.dup.empty()) o.dup_pct = f.dup;
  if (!f.profile.empty()) o.profile = f.profile;
  if (!f.direction.empty()) o.direction = f.direction;
  o.settings = setting_axes(f.settings);
  if (!f.clients.empty()) o.clients = f.clients;
  if (!f.connect.empty()) {
    o.connects.emplace();
    for (const std::string& c : f.connect) o.connects->push_back(*parse_connect_mode(c));
  }
  if (f.calls) o.calls = f.calls;
  if (f.fault_calls) o.fault_calls = f.fault_calls;
  if (f.timeout_ms) o.timeout_ms = f.timeout_ms;
  if (f.trials) o.trials = f.trials;
  if (!f.topology.empty()) o.topology = netem::parse_topology(f.topology);
  if (!f.backend.empty()) o.faults_backend = f.backend;
  o.no_pin = f.no_pin;
  // --grpc-retry is --retry-policy library, kept for older command lines:
  // the library policy applies where a row has one (grpc), none elsewhere.
  if (!f.retry_policies.empty() || f.grpc_retry) o.retries.emplace();
  if (f.grpc_retry) o.retries->push_back({RetryPolicy::kLibrary, 0});
  for (const std::string& r : f.retry_policies) {
    try {
      o.retries->push_back(RetryChoice::parse(r));
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--retry-policy", e.what());
    }
  }
  if (!f.at_most_once.empty()) {
    o.at_most_once.emplace();
    for (const std::string& a : f.at_most_once) o.at_most_once->push_back(*parse_at_most_once(a));
  }
  if (!f.paths.empty()) {
    for (const std::string& p : f.paths)
      if (!find_path(p)) throw CLI::ValidationError("--paths", "'" + p + "' is not a path (known: " + path_names() + ")");
    o.paths = f.paths;
  }
  if (!f.replicas.empty()) o.replicas = f.replicas;
  if (f.duration_s > 0) o.duration_ms = static_cast<int64_t>(f.duration_s * 1000 + 0.5);
  return o;
}

class DependabilityFlags : public ExperimentFlags {
 public:
  explicit DependabilityFlags(CLI::App& cmd);
  Plan plan(const PlanContext& context) override;
  std::unique_ptr<RunHold> prepare(CellEnvironment& env, RunMetadata& metadata) override;
  bool shuffles() const override { return true; }
  std::optional<uint64_t> shuffle_seed() const override { return f.shuffle_seed; }

 private:
  Flags f;
};

DependabilityFlags::DependabilityFlags(CLI::App& cmd) {
  cmd.add_option("--preset", f.preset, dependability_presets_help())
      ->check(CLI::IsMember(dependability_presets()))->capture_default_str();
  cmd.add_option("--tables", f.tables, dependability_tables_help())->delimiter(',');
  cmd.add_option("--transports", f.transports, "comma-separated transports: " + transport_names())->delimiter(',');
  cmd.add_option("--loads", f.loads, "server load axis: CPU hogs, e.g. 0,5,10,20")->delimiter(',')
      ->check(in_range(0, 256));
  cmd.add_option("--loss", f.loss, "loss % axis, e.g. 0,1,5")->delimiter(',')->check(in_range(0.0, 100.0));
  cmd.add_option("--dup", f.dup, "duplication % axis, e.g. 0,1,5")->delimiter(',')->check(in_range(0.0, 100.0));
  cmd.add_option("--profile", f.profile, "a fault profile from netem/profiles/ (or a file)");
  cmd.add_option("--direction", f.direction, "to-server | to-client | both")
      ->check(CLI::IsMember({"to-server", "to-client", "both"}));
  add_setting_axis_flags(&cmd, kDependabilityMatrix, &f.settings);  // --retry-timeouts, --drc, --drain: from the rows
  cmd.add_option("--clients", f.clients, "parallel clients per cell, e.g. 1,4")->delimiter(',')
      ->check(in_range(1, 256));
  cmd.add_option("--connect", f.connect, "persistent,per-call")->delimiter(',')
      ->check(CLI::IsMember({"persistent", "per-call"}));
  cmd.add_option("--calls", f.calls, "calls per trial in tables without network faults (levy1989: 16,000)")
      ->check(in_range(uint64_t{1}, uint64_t{1} << 32));
  cmd.add_option("--fault-calls", f.fault_calls, "calls per trial in tables with network faults (levy1989: 3,200)")
      ->check(in_range(uint64_t{1}, uint64_t{1} << 32));
  cmd.add_option("--timeout", f.timeout_ms, "total time per call in ms (default: each library's)")
      ->check(in_range(1, 3600 * 1000));
  cmd.add_option("--topology", f.topology, "loopback | two-host")->check(CLI::IsMember({"loopback", "two-host"}));
  cmd.add_option("--faults-backend", f.backend, "auto | netem | uml-netem | nftables")
      ->check(CLI::IsMember({"auto", "netem", "uml-netem", "nftables"}));
  cmd.add_option("--wire-capture", f.wire_capture,
                  "capture the client's wire on sunrpc-udp cells as root (two-host, and loopback in a namespace "
                  "of its own), to give each extra execution its cause: on | bpf | nflog | off (on: eBPF where the "
                  "kernel allows, else nflog; bpf, nflog: only that one; off: the same cells without it, e.g. to "
                  "measure what it costs)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(WireCapture::kChoices), std::end(WireCapture::kChoices))))
      ->capture_default_str();
  cmd.add_flag("--no-pin", f.no_pin, "do not pin server+hogs to CPU 0 and clients to the others");
  cmd.add_option("--retry-policy", f.retry_policies,
                  "client retry policy axis: none, library (where the library has one: grpc), app:K (a new handle "
                  "and the same call again, up to K times), e.g. none,app:5")->delimiter(',');
  cmd.add_flag("--grpc-retry", f.grpc_retry, "the same as --retry-policy library (kept for older command lines)");
  cmd.add_option("--at-most-once", f.at_most_once,
                  "server at-most-once table axis: off, on (each server's own), shared (one table in a Redis every "
                  "replica of a path shares; on a path only)")->delimiter(',')
      ->check(CLI::IsMember({"off", "on", "shared"}));
  cmd.add_option("--paths", f.paths, "the path axis: how calls reach the servers (harness/paths/, docs/paths.md): " +
                  path_names() + "; a path that cannot carry a transport is left out with its reason")
      ->delimiter(',');
  cmd.add_option("--replicas", f.replicas, "server replicas behind a path's proxy or balancing client, e.g. 2")
      ->delimiter(',')->check(in_range(1, 8));
  cmd.add_option("--duration", f.duration_s, "seconds each cell's clients make calls (cells with timed events: "
                  "default 10); --calls is then only a cap")->check(in_range(0.1, 3600.0));
  cmd.add_option("--trials", f.trials, "independent trials of every cell, each with a fresh server, clients and "
                  "link (default: the preset's; levy1989 5)")->check(in_range(1, 1000));
  cmd.add_option("--shuffle-seed", f.shuffle_seed, "seed of the trials' shuffled order (default: a random one; "
                  "either way it is recorded in metadata.json)")->check(in_range(uint64_t{0}, uint64_t{0xffffffff}));
}

Plan DependabilityFlags::plan(const PlanContext& context) {
  // Across two machines is Levy's "different machine": the labels say two-host.
  if (context.server_host) {
    if (f.topology == "loopback")
      throw std::invalid_argument("with --server-host the server is on another machine: leave out --topology (it is "
                                  "two-host)");
    f.topology = "two-host";
  }
  std::vector<Block> blocks = dependability_preset(f.preset);
  Plan plan;
  plan.notes = apply_overrides(blocks, overrides(f));
  plan.cells = expand_dependability(blocks);
  for (const std::string& note : uneven_splits(blocks)) plan.notes.push_back(note);
  for (const std::string& note : retry_policies_left_out(blocks)) plan.notes.push_back(note);
  for (const std::string& note : paths_left_out(blocks)) plan.notes.push_back(note);
  add_adapters_left_out(plan, f.transports.empty());
  plan.what = "preset " + f.preset;
  plan.metadata.preset = f.preset;
  plan.metadata.wire_capture = f.wire_capture;
  return plan;
}

std::unique_ptr<RunHold> DependabilityFlags::prepare(CellEnvironment& env, RunMetadata&) {
  env.wire_capture = f.wire_capture;
  if (!env.caps.root)
    std::fprintf(stderr, "rpclab: not root: two-host and fault cells will be skipped (they need network namespaces), "
                 "and loopback cells run on the host's lo, without the wire capture\n");
  return nullptr;
}


// A trial (or a cell from before trials): its classes, onsets and load.
std::string classes_words(const std::optional<ClassCounts>& classes, std::optional<size_t> onsets,
                          std::optional<double> server_cpu_run_queue) {
  ClassCounts c = classes.value_or(ClassCounts{});
  std::string s = fmt::format("{} calls, silent {} (loss {}, dup {}), dup calls {}, indeterminate {}",
                              grouped(c.calls), grouped(c.silent()), grouped(c.silent_loss),
                              grouped(c.silent_duplicates), grouped(c.duplicate_calls), grouped(c.indeterminate));
  if (onsets) s += fmt::format(", onsets {}", *onsets);
  if (server_cpu_run_queue) s += fmt::format(", server CPU runnable {:.1f}", *server_cpu_run_queue);
  return s;
}

std::string reason_words(const std::string& reason) { return reason.empty() ? "" : " [" + reason + "]"; }

std::string trial_words(const TrialRecord& t) {
  const DependabilityTrial& d = t.dependability;
  std::optional<size_t> onsets = d.episodes ? std::optional<size_t>(d.episodes->onsets) : std::nullopt;
  std::optional<double> queue = d.load ? d.load->server_cpu_run_queue.value : std::nullopt;
  return classes_words(d.classes, onsets, queue) + reason_words(t.reason);
}

// A cell: its trials in a line.
std::string cell_words(const CellRecord& r) {
  const DependabilityCell& d = r.dependability;
  if (d.over_trials)
    return fmt::format("silent {}; dup calls {}{}", trials_headline(d.over_trials->silent),
                       trials_headline(d.over_trials->duplicate_calls), reason_words(r.reason));
  std::optional<double> queue = d.load ? d.load->server_cpu_run_queue.value : std::nullopt;
  return classes_words(d.classes, std::nullopt, queue) + reason_words(r.reason);
}

}  // namespace

Experiment dependability_experiment() {
  Experiment e;
  e.name = "dependability";
  e.help = "count calls silently lost or run twice (Levy 1989)";
  e.presets = [] {
    std::vector<PresetRow> rows;
    for (const auto& [name, summary] : dependability_preset_summaries()) rows.push_back({name, summary});
    return rows;
  };
  e.add_flags = [](CLI::App& cmd) -> std::unique_ptr<ExperimentFlags> {
    return std::make_unique<DependabilityFlags>(cmd);
  };
  e.schedule = shuffled_trials;
  e.trial_runner = [](const std::string&, CellEnvironment&) -> TrialRunner { return run_dependability_trial; };
  e.cannot_run = dependability_cannot_run;
  e.summarize = summarize_dependability;
  e.tables = dependability_tables();
  e.cell_figures = dependability_cell_figures();
  e.plots = dependability_plots;
  e.trial_words = trial_words;
  e.cell_words = cell_words;
  return e;
}

}  // namespace rpclab::harness
