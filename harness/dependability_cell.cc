#include "harness/dependability_cell.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "core/atomic_file.h"
#include "harness/cell_events.h"
#include "harness/cell_failure.h"
#include "harness/cell_processes.h"
#include "harness/classify.h"
#include "harness/guest_cell.h"
#include "harness/result_record.h"
#include "harness/stats.h"
#include "netem/command_runner.h"
#include "netem/fault_backend.h"
#include "netem/server_load.h"

namespace rpclab::harness {
namespace {

using namespace std::chrono_literals;

// Hogs need a moment to become runnable before the load is real.
constexpr auto kLoadSettle = 1s;

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

namespace {

struct Link {
  netem::Choice choice;
  std::unique_ptr<netem::FaultBackend> backend;
  netem::LinkCounters before;
};

Link impair(const CellConfig& cell, const netem::Choice& choice, const netem::Topology& topology,
            const CellFiles& files, netem::CommandLog& log) {
  Link link;
  link.choice = choice;
  if (choice.kind == netem::BackendKind::kNone) return link;
  link.backend = netem::make_backend(choice.kind, topology, log);
  link.backend->apply(cell.faults);
  write_file_atomically(files.path("link-before.txt"), link.backend->state());
  link.before = link.backend->read_counters();
  return link;
}

nlohmann::json faults_json(const CellConfig& cell, Link& link, const CellFiles& files) {
  nlohmann::json f = {{"backend", netem::backend_name(link.choice.kind)},
                      {"backend_reason", link.choice.reason},
                      {"spec", cell.faults.to_json()},
                      {"loss_pct", cell.faults.loss_pct},
                      {"dup_pct", cell.faults.dup_pct},
                      {"measured_loss_pct", nullptr},
                      {"measured_dup_pct", nullptr}};
  if (!link.backend) return f;
  netem::LinkCounters after = link.backend->read_counters();
  write_file_atomically(files.path("link-after.txt"), link.backend->state());
  netem::MeasuredFaults m = netem::measure(link.before, after, cell.faults.direction);
  f["measured_loss_pct"] = m.loss_pct;
  f["measured_dup_pct"] = m.dup_pct;
  f["packets_offered"] = m.offered;
  f["counters_before"] = link.before.to_json();
  f["counters_after"] = after.to_json();
  f["seed"] = cell.faults.seed ? nlohmann::json(*cell.faults.seed) : nlohmann::json(nullptr);
  f["seed_applied"] = link.backend->seed_applied();
  return f;
}

nlohmann::json load_json(const netem::MeasuredLoad& load, const ProcessPlacement& placement) {
  return {{"hogs", load.hogs},
          {"loadavg_1m", load.loadavg_1m},
          {"run_queue_mean", load.run_queue_mean},
          {"samples", load.samples},
          {"server_cpus", placement.server_cpus},
          {"client_cpus", placement.client_cpus}};
}

void run_on_this_kernel(const CellConfig& cell, const netem::Choice& choice, const CellFiles& files,
                        CellEnvironment& env, netem::CommandLog& log, nlohmann::json& record) {
  auto topology = netem::Topology::create(cell.topology, log);
  ProcessPlacement placement = place_processes(cell, env.bin_dir, env.caps.cpus, env.stop);
  ServerUnderTest server(cell, topology->server(), files, placement, log);
  Link link = impair(cell, choice, *topology, files, log);
  netem::ServerLoad load(cell.hogs, placement.server_cpus, log);
  if (cell.hogs) std::this_thread::sleep_for(kLoadSettle);

  CellEvents events(cell.faults, link.backend.get(), server, log);
  auto started = std::chrono::steady_clock::now();
  auto tick = [&] {
    server.check_alive();
    if (!env.progress) return;
    if (auto s = server.stats()) env.progress->update(s->value("next_calls", uint64_t{0}));
  };
  ClientResults clients;
  try {
    clients = run_clients(cell, {}, topology->client(), server.endpoint(), files, placement,
                          std::chrono::seconds(env.cell_time_limit_s), tick, log, [&] { events.poll(); });
    events.finish();
  } catch (...) {
    events.add_to(record);  // what happened before the failure stays in the record
    throw;
  }
  events.add_to(record);
  double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  netem::MeasuredLoad measured_load = load.finish();
  record["faults"] = faults_json(cell, link, files);
  Ledger ledger = server.stop_and_read_ledger();

  std::vector<ClientCalls> calls;
  for (int k = 1; k <= cell.clients; ++k) calls.push_back({static_cast<uint32_t>(k), &clients.records[k - 1]});
  ClassCounts classes = classify(calls, ledger);
  add_classes(record, classes);
  record["load"] = load_json(measured_load, placement);
  record["client_wall_s"] = wall_s;
  record["calls_per_s"] = wall_s > 0 ? static_cast<double>(classes.calls) / wall_s : 0;
  record["settings"] = clients.records.front().header.value("settings", nlohmann::json::object());
  if (clients.truncated)
    mark(record, "ok", fmt::format("cell time limit ({} s) reached: {} of {} calls made", env.cell_time_limit_s,
                                   classes.calls, cell.total_calls()));
}

}  // namespace

void add_classes(nlohmann::json& record, const ClassCounts& c) {
  record["calls"] = c.calls;
  record["classes"] = c.to_json();
  record["levy_mismatches"] = c.levy_mismatches;
  // Calls that ... are proportions of the calls; mismatches and extra
  // executions are counts that can exceed them (stats.h).
  auto proportion = [&](uint64_t k) { return proportion_per_million(k, c.calls).to_json(); };
  auto count = [&](uint64_t k) { return count_per_million(k, c.calls).to_json(); };
  record["silent_per_million"] = proportion(c.silent());
  record["rates_per_million"] = {{"silent_loss", proportion(c.silent_loss)},
                                 {"silent_duplicates", proportion(c.silent_duplicates)},
                                 {"duplicate_calls", proportion(c.duplicate_calls)},
                                 {"indeterminate", proportion(c.indeterminate)},
                                 {"levy_mismatches", count(c.levy_mismatches)},
                                 {"extra_executions", count(c.extra_executions)}};
}

nlohmann::json run_dependability_cell(const CellConfig& cell, const std::string& cell_dir, CellEnvironment& env,
                                      netem::CommandLog& log) {
  nlohmann::json record = base_record(cell, env.run_id);
  record["calls_planned"] = cell.total_calls();
  record["drc"] = cell.drc;
  record["retry_timeout_ms"] = cell.retry_timeout_ms ? nlohmann::json(*cell.retry_timeout_ms) : nlohmann::json(nullptr);
  record["drain_stale_replies"] = cell.drain_stale_replies;
  record["started_at"] = iso8601_now();
  record["cell_dir"] = cell_dir;
  auto t0 = std::chrono::steady_clock::now();
  CellFiles files{cell_dir};
  try {
    if (std::string why = skip_reason(cell, env.caps); !why.empty()) {
      mark(record, "skipped", why);
    } else {
      netem::Choice choice;
      try {
        choice = netem::choose_backend(env.inside_guest ? "netem" : cell.faults_backend, cell.faults, env.caps);
      } catch (const netem::SpecError& e) {
        // Nothing here can make these faults: with "auto" that is a skip, an
        // explicitly requested backend that is missing is a failure.
        mark(record, cell.faults_backend == "auto" ? "skipped" : "failed", e.what());
        choice.kind = netem::BackendKind::kNone;
      }
      if (record["status"] == "ok") {
        if (choice.kind == netem::BackendKind::kUmlNetem)
          record = run_cell_in_guest(cell, cell_dir, choice, env, log);
        else
          run_on_this_kernel(cell, choice, files, env, log, record);
      }
    }
  } catch (const CellFailure& e) {
    mark(record, "failed", e.what());
  } catch (const netem::CommandError& e) {
    mark(record, "failed", e.what());
  } catch (const SetupError& e) {
    mark(record, "failed", e.what());
  }
  record["ended_at"] = iso8601_now();
  record["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return record;
}

}  // namespace rpclab::harness
