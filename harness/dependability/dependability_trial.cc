#include "harness/dependability/dependability_trial.h"

#include <fmt/format.h>

#include <chrono>

#include "core/atomic_file.h"
#include "harness/causes/cell_causes.h"
#include "harness/dependability/cell_events.h"
#include "harness/run/cell_failure.h"
#include "harness/run/cell_processes.h"
#include "harness/dependability/classify.h"
#include "harness/run/guest_cell.h"
#include "harness/remote/remote_clients.h"
#include "harness/remote/remote_server.h"
#include "harness/run/result_record.h"
#include "harness/dependability/trial_join.h"
#include "process/command_runner.h"
#include "netem/faults/backend_factory.h"
#include "netem/load/load_meter.h"
#include "netem/faults/remote_faults.h"
#include "netem/load/server_load.h"

namespace rpclab::harness {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Why a cell cannot run on this machine, or "" when it can.
std::string skip_reason(const CellConfig& cell, const netem::Capabilities& caps) {
  if (cell.topology == netem::TopologyKind::kTwoHost && !caps.root)
    return cell.faults.empty()
               ? "the two-host topology needs root for network namespaces (run as root, or --topology loopback)"
               : "network faults need root: they live on a link between two network namespaces (run as root)";
  if (cell.topology == netem::TopologyKind::kTwoHost && !caps.netns)
    return "this kernel or container cannot create network namespaces (ip netns add failed)";
  return "";
}

}  // namespace

std::string missing_backend(const CellConfig& cell, const netem::Capabilities& caps) {
  if (cell.faults_backend == "auto" || cell.faults.empty() || !skip_reason(cell, caps).empty()) return "";
  try {
    netem::choose_backend(cell.faults_backend, cell.faults, caps);
  } catch (const netem::SpecError& e) {
    return e.what();
  }
  return "";
}

std::string why_host_loopback(const netem::Capabilities& caps) {
  if (!caps.root) return "not root, so no namespace of its own";
  if (!caps.netns) return "this kernel or container cannot create network namespaces";
  return "";
}

namespace {

struct Link {
  netem::Choice choice;
  std::unique_ptr<netem::LinkFaults> backend;
  netem::LinkCounters before;
};

// The faults on, their state and counters kept as the trial's baseline.
void apply(Link& link, const CellConfig& cell, const CellFiles& files) {
  link.backend->apply(cell.faults);
  write_file_atomically(files.path("link-before.txt"), link.backend->state());
  link.before = link.backend->read_counters();
}

Link impair(const CellConfig& cell, const netem::Choice& choice, const netem::Topology& topology,
            const CellFiles& files, process::CommandLog& log) {
  Link link;
  link.choice = choice;
  if (choice.kind == netem::BackendKind::kNone) return link;
  link.backend = netem::make_backend(choice.kind, topology, log);
  apply(link, cell, files);
  return link;
}

TrialFaults measured_faults(const CellConfig& cell, Link& link, const CellFiles& files) {
  TrialFaults f;
  f.backend = netem::backend_name(link.choice.kind);
  f.backend_reason = link.choice.reason;
  f.spec = cell.faults;
  f.loss_pct = cell.faults.loss_pct;
  f.dup_pct = cell.faults.dup_pct;
  f.measured_loss_pct = f.measured_dup_pct = MaybeNull<double>::null();
  if (!link.backend) return f;
  netem::LinkCounters after = link.backend->read_counters();
  write_file_atomically(files.path("link-after.txt"), link.backend->state());
  netem::MeasuredFaults m = netem::measure(link.before, after, cell.faults.direction);
  f.measured_loss_pct = m.loss_pct;
  f.measured_dup_pct = m.dup_pct;
  f.packets_offered = m.offered;
  f.counters_before = link.before.to_json();
  f.counters_after = after.to_json();
  f.seed = MaybeNull<uint64_t>::of(cell.faults.seed);
  f.seed_applied = link.backend->seed_applied();
  return f;
}

TrialLoad measured_load(const netem::MeasuredLoad& load, const netem::ServerLoad& hogs,
                        const ProcessPlacement& placement) {
  TrialLoad l = TrialLoad::measured(load);
  l.settle_s = hogs.settle_s();
  l.settled = hogs.settled();
  l.server_cpus = placement.server_cpus;
  l.client_cpus = placement.client_cpus;
  return l;
}

// The join: classes as before, and each client's counts and the episodes,
// which the statistics over the cell's trials read.
void add_join(DependabilityTrial& trial, const CellConfig& cell, const ClientResults& clients, const Ledger& ledger,
              uint32_t number) {
  std::vector<ClientCalls> calls;
  for (int k = 1; k <= cell.clients; ++k) calls.push_back({static_cast<uint32_t>(k), &clients.records[k - 1]});
  trial.classes = classify(calls, ledger);
  TrialJoin join = join_trial(number, calls, ledger);
  trial.counts = join.counts;
  trial.episodes = episodes_record(find_episodes(join.errors));
}

// Client 1's resolved settings, as its call record's header gives them.
std::optional<nlohmann::json> client_settings(const ClientResults& clients) {
  return clients.records.front().header.value("settings", nlohmann::json::object());
}

void add_timing(DependabilityTrial& trial, double wall_s, TrialPhases phases) {
  trial.client_wall_s = wall_s;
  trial.calls_per_s = wall_s > 0 ? static_cast<double>(trial.classes->calls) / wall_s : 0;
  trial.phases_s = phases;
}

// The clients, with the spec's timed events applied around them (polled
// from the clients' wait loop, ended once they are done). What the events
// did goes into the trial, also when it fails.
ClientResults run_clients_with_events(const CellConfig& cell, const netem::Topology& topology, ServerUnderTest& server,
                                      Link& link, const CellFiles& files, const ProcessPlacement& placement,
                                      CellEnvironment& env, const std::function<void()>& tick, process::CommandLog& log,
                                      TrialRecord& trial) {
  CellEvents events(cell.faults, cell.duration_ms, dynamic_cast<netem::FaultBackend*>(link.backend.get()), server, log);
  try {
    ClientResults clients = run_clients(cell, {}, topology.client(), server.endpoint(), files, placement,
                                        std::chrono::seconds(env.cell_time_limit_s), tick, log,
                                        [&events] { events.poll(); });
    events.finish();
    events.add_to(trial);
    return clients;
  } catch (...) {
    events.add_to(trial);
    throw;
  }
}

// Each phase's time goes into the record: the trial's fixed cost (link,
// server, load settling, teardown) beside the clients' own.
void run_on_this_kernel(const CellConfig& cell, const netem::Choice& choice, const TrialPlace& place,
                        CellEnvironment& env, process::CommandLog& log, TrialRecord& trial) {
  auto t0 = Clock::now();
  CellFiles files{place.dir};
  std::string host_loopback = why_host_loopback(env.caps);
  auto where = host_loopback.empty() ? netem::LoopbackPlace::kPrivateNamespace : netem::LoopbackPlace::kHost;
  auto topology = netem::Topology::create(cell.topology, log, where);
  DependabilityTrial& d = trial.dependability;
  d.topology_place = topology->place();
  ProcessPlacement placement = place_processes(cell, env.bin_dir, env.caps.cpus, env.stop);
  ServerUnderTest server(cell, topology->server(), files, placement, log);
  Link link = impair(cell, choice, *topology, files, log);
  double setup_s = seconds_since(t0);
  netem::ServerLoad hogs(cell.hogs, placement.server_cpus, log);
  TrialCapture capture =
      start_capture(cell, env.wire_capture, topology->client(), server.endpoint(), host_loopback, log);

  auto started = Clock::now();
  netem::LoadMeter meter(server.pid(), placement.server_cpus, placement.client_cpus);
  auto tick = [&] {
    server.check_alive();  // waitpid only: nothing is asked of the server while it is measured
    if (env.progress) env.progress->tick();
  };
  ClientResults clients = run_clients_with_events(cell, *topology, server, link, files, placement, env, tick, log,
                                                  trial);
  double wall_s = seconds_since(started);
  netem::MeasuredLoad load = meter.finish(cell.hogs);
  hogs.stop();
  auto teardown = Clock::now();
  d.faults = measured_faults(cell, link, files);
  Ledger ledger = server.stop_and_read_ledger();
  add_join(d, cell, clients, ledger, place.trial);
  d.causes = trial_causes(cell, capture, files, clients, d.classes->extra_executions);
  d.load = measured_load(load, hogs, placement);
  trial.settings = client_settings(clients);
  add_timing(d, wall_s, {setup_s, hogs.settle_s(), wall_s, seconds_since(teardown)});
  if (clients.truncated)
    mark(trial, "ok", fmt::format("cell time limit ({} s) reached: {} of {} calls made", env.cell_time_limit_s,
                                  d.classes->calls, cell.total_calls()));
}

// The watchdog fires this long after the clients' time limit: time for a
// trial at its limit to stop the server and fetch its files first.
constexpr int kWatchdogGrace_s = 5;

// --server-host: the server there, the dead-man switch armed before it and
// before the faults on its data interface; the clients here, straight to
// its data address. The same record, plus which host ran what. What the
// server's end cannot apply, and hogs, are refused before the run
// (remote_refusal).
void run_with_remote_server(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                            process::CommandLog& log, TrialRecord& trial) {
  auto t0 = Clock::now();
  CellFiles files{place.dir};
  RemoteSession& remote = *env.remote;
  DependabilityTrial& d = trial.dependability;
  trial.hosts = remote.facts();
  d.topology_place = MaybeNull<std::string>::null();  // `hosts` says where it ran
  if (env.remote_clients) (*trial.hosts)["clients"] = env.remote_clients->host_facts();
  ProcessPlacement placement = place_processes(cell, env.bin_dir, 1, env.stop);  // nothing to share CPUs with here
  bool faults = !cell.faults.empty();
  RemoteServer server(cell, remote, fmt::format("cell-{}-trial-{}", place.cell_index, place.trial),
                      env.cell_time_limit_s + kWatchdogGrace_s, env.stop,
                      faults ? netem::remote_fault_removal(remote.data_iface(), remote.sudo()) : "");
  d.remote_server = server.to_json();
  Link link{{netem::BackendKind::kNone, "no faults"}, nullptr, {}};
  if (faults) {
    netem::Choice there = remote.faults_for(cell.faults_backend);  // checked by open_remote
    link.choice = {there.kind, there.reason + "; on " + remote.host().target().text() + "'s " + remote.data_iface() +
                                   ": the server's end of the data link"};
    link.backend = netem::make_remote_faults(there.kind, remote.host(), remote.data_iface(), remote.sudo());
    apply(link, cell, files);
  }
  double setup_s = seconds_since(t0);
  auto started = Clock::now();
  auto tick = [&] {
    server.check_alive();
    if (env.progress) env.progress->tick();
  };
  auto limit = std::chrono::seconds(env.cell_time_limit_s);
  ClientResults clients =
      env.remote_clients
          ? run_remote_clients(cell, *env.remote_clients, fmt::format("clients-{}-trial-{}", place.cell_index,
                                                                      place.trial),
                               server.endpoint(), files, env.cell_time_limit_s + kWatchdogGrace_s, limit, tick, env.stop)
          : run_clients(cell, {}, netem::Host{}, server.endpoint(), files, placement, limit, tick, log);
  double wall_s = seconds_since(started);
  auto teardown = Clock::now();
  d.faults = measured_faults(cell, link, files);
  if (faults) remote.host().run_checked(netem::remote_fault_removal(remote.data_iface(), remote.sudo()));
  Ledger ledger = server.stop_and_read_ledger(files);
  add_join(d, cell, clients, ledger, place.trial);
  TrialCapture none{nullptr, "--server-host: the clients' end is this host's own interface, which rpclab leaves alone"};
  d.causes = trial_causes(cell, none, files, clients, d.classes->extra_executions);
  d.load = TrialLoad{};
  d.load->not_measured = "no: the server runs on another host (see hosts.server.loadavg)";
  trial.settings = client_settings(clients);
  add_timing(d, wall_s, {setup_s, 0, wall_s, seconds_since(teardown)});
  if (clients.truncated)
    mark(trial, "ok", fmt::format("cell time limit ({} s) reached: {} of {} calls made", env.cell_time_limit_s,
                                  d.classes->calls, cell.total_calls()));
}

}  // namespace

void run_dependability_trial(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                             process::CommandLog& log, TrialRecord& trial) {
  trial.dependability.calls_planned = cell.total_calls();
  if (env.remote) return run_with_remote_server(cell, place, env, log, trial);
  if (std::string why = skip_reason(cell, env.caps); !why.empty()) return mark(trial, "skipped", why);
  netem::Choice choice;
  try {
    choice = netem::choose_backend(env.inside_guest ? "netem" : cell.faults_backend, cell.faults, env.caps);
  } catch (const netem::SpecError& e) {
    // Nothing here can make these faults: with "auto" that is a skip, an
    // explicitly requested backend that is missing is a failure.
    if (cell.faults_backend == "auto") return mark(trial, "skipped", e.what());
    throw CellFailure(e.what());
  }
  if (choice.kind == netem::BackendKind::kUmlNetem) return run_trial_in_guest(cell, place, choice, env, log, trial);
  run_on_this_kernel(cell, choice, place, env, log, trial);
}

}  // namespace rpclab::harness
