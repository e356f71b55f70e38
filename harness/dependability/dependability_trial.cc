#include "harness/dependability/dependability_trial.h"

#include <fmt/format.h>

#include <chrono>

#include "harness/causes/cell_causes.h"
#include "harness/placement/cell_events.h"
#include "harness/dependability/trial_join.h"
#include "harness/run/cell_failure.h"
#include "harness/placement/cell_processes.h"
#include "harness/placement/guest_cell.h"
#include "harness/placement/local_placement.h"
#include "harness/paths/path_placement.h"
#include "harness/run/result_record.h"
#include "netem/config/backend_choice.h"
#include "netem/spec/spec_error.h"

namespace rpclab::harness {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The join, once: classes, each client's counts and the episodes, which
// the statistics over the cell's trials read.
TrialJoin add_join(DependabilityTrial& trial, const CellConfig& cell, const ClientResults& clients,
                   const Ledger& ledger, uint32_t number) {
  std::vector<ClientCalls> calls;
  for (int k = 1; k <= cell.clients; ++k) calls.push_back({static_cast<uint32_t>(k), &clients.records[k - 1]});
  TrialJoin join = join_trial(number, calls, ledger);
  trial.classes = join.classes;
  trial.counts = join.counts;
  trial.episodes = episodes_record(find_episodes(join.errors));
  return join;
}

// The clients, with the spec's timed events applied around them (polled
// from the clients' wait loop, ended once they are done). What the events
// did goes into the trial, also when it fails.
ClientResults run_clients_with_events(Placement& at, const CellConfig& cell, TrialServer& server, const Link& link,
                                      const CellFiles& files, const TrialPlace& place, CellEnvironment& env,
                                      const std::function<void()>& tick, process::CommandLog& log,
                                      TrialRecord& trial, std::string& events_not_met) {
  CellEvents events(cell.faults, cell.duration_ms, link.events_backend(), server.controls(), log);
  try {
    ClientResults clients = at.run_clients(cell, {}, server.endpoint(), files, place,
                                           std::chrono::seconds(env.cell_time_limit_s), tick,
                                           [&events] {
                                             events.poll();
                                             return -1;  // the events keep time by the 5 ms pass
                                           });
    events.finish();
    events.add_to(trial);
    events_not_met = events.not_met();
    return clients;
  } catch (...) {
    events.add_to(trial);
    throw;
  }
}

// A cell on a path of replicas (harness/paths/): its faults on the
// client's link by nftables (a path does not move into a guest: netem's
// delay on one replica's link is left for a kernel that has netem).
void run_path_trial(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env, process::CommandLog& log,
                    TrialRecord& trial) {
  netem::Choice choice;
  try {
    choice = netem::choose_backend(cell.faults_backend, cell.faults, env.caps);
  } catch (const netem::SpecError& e) {
    throw CellFailure(e.what());  // a backend named by --faults-backend (dependability_cannot_run skips "auto")
  }
  PathPlacement at(cell, *find_path(cell.path), choice, env, log);
  run_placed_trial(at, cell, place, env, log, trial);
}

}  // namespace

// Each phase's time goes into the record: the trial's fixed cost (link,
// server, load settling, teardown) beside the clients' own.
void run_placed_trial(Placement& at, const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                      process::CommandLog& log, TrialRecord& trial) {
  auto t0 = Clock::now();
  CellFiles files{place.dir};
  DependabilityTrial& d = trial.dependability;
  at.describe(trial);
  std::unique_ptr<TrialServer> server =
      at.start_server(cell, files, fmt::format("cell-{}-trial-{}", place.cell_index, place.trial));
  server->describe(trial);
  Link link = at.impair(cell, files);
  double setup_s = seconds_since(t0);
  std::unique_ptr<ServerCpuLoad> load = at.load(cell, at.processes(cell));
  TrialCapture capture = start_capture(cell, env.wire_capture, at.client_end(), server->endpoint(), log);

  auto started = Clock::now();
  load->start_measuring(*server);
  auto tick = [&] {
    server->check_alive();  // waitpid only: nothing is asked of the server while it is measured
    if (env.progress) env.progress->tick();
  };
  std::string events_not_met;
  ClientResults clients =
      run_clients_with_events(at, cell, *server, link, files, place, env, tick, log, trial, events_not_met);
  double wall_s = seconds_since(started);
  d.load = load->finish();
  auto teardown = Clock::now();
  d.faults = link.measured(cell.faults, files);
  at.restore();
  Ledger ledger = server->stop_and_read_ledger(files);
  TrialJoin join = add_join(d, cell, clients, ledger, place.trial);
  if (!server->explain(cell, clients.records, join.classes.extra_executions, trial))
    d.causes = trial_causes(cell, capture, files, clients, join.classes.extra_executions);
  d.client_wall_s = wall_s;
  d.calls_per_s = wall_s > 0 ? static_cast<double>(join.classes.calls) / wall_s : 0;
  trial.settings = clients.records.front().settings();
  d.phases_s = TrialPhases{setup_s, load->settle_s(), wall_s, seconds_since(teardown)};
  // Counted all the same (the record shows what the calls met), but a trial
  // whose events did not happen did not measure what its cell names.
  if (!events_not_met.empty()) return mark(trial, "failed", events_not_met);
  if (clients.truncated)
    mark(trial, "ok", fmt::format("cell time limit ({} s) reached: {} of {} calls made", env.cell_time_limit_s,
                                  join.classes.calls, cell.total_calls()));
}

std::string dependability_cannot_run(const CellConfig& cell, const CellEnvironment& env) {
  if (std::string why = adapter_cannot_run(cell, static_cast<bool>(env.remote)); !why.empty()) return why;
  // A path's proxy and replicas live in this machine's namespaces: across
  // two machines there is no middle host to put them in (yet).
  if (env.remote)
    return cell.path.empty() ? "" : "a path runs on one machine (its proxy and replicas in namespaces here): leave "
                                    "out --server-host, or --paths";
  if (std::string why = cell.path.empty() ? cannot_run_here(cell, env.caps) : path_cannot_run(cell, env.caps);
      !why.empty())
    return why;
  bool here = cell.path.empty();
  netem::Choice choice;
  try {
    choice = netem::choose_backend(here && env.inside_guest ? "netem" : cell.faults_backend, cell.faults, env.caps);
  } catch (const netem::SpecError& e) {
    // Nothing here can make the faults: with "auto" that is a skip; a
    // backend asked for by name that is missing is the trial's failure.
    return cell.faults_backend == "auto" ? e.what() : "";
  }
  if (!here && choice.kind == netem::BackendKind::kUmlNetem)
    return "a path's faults need netem on this kernel (a path does not run in a guest)";
  return "";
}

void run_dependability_trial(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                             process::CommandLog& log, TrialRecord& trial) {
  trial.dependability.calls_planned = cell.total_calls();
  if (std::string why = dependability_cannot_run(cell, env); !why.empty()) return mark(trial, "skipped", why);
  if (env.remote) return run_placed_trial(*env.remote(cell, log), cell, place, env, log, trial);
  if (!cell.path.empty()) return run_path_trial(cell, place, env, log, trial);
  netem::Choice choice;
  try {
    choice = netem::choose_backend(env.inside_guest ? "netem" : cell.faults_backend, cell.faults, env.caps);
  } catch (const netem::SpecError& e) {
    throw CellFailure(e.what());  // a backend named by --faults-backend (dependability_cannot_run skips "auto")
  }
  // This kernel cannot make the faults: the whole trial moves into a guest
  // whose kernel can, and runs this same function there.
  if (choice.kind == netem::BackendKind::kUmlNetem) return run_trial_in_guest(cell, place, choice, env, log, trial);
  run_placed_trial(*place_here(cell, choice, env, log), cell, place, env, log, trial);
}

}  // namespace rpclab::harness
