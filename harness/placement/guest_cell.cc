#include "harness/placement/guest_cell.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "common/atomic_file.h"
#include "common/cli_support.h"
#include "harness/run/cell_failure.h"
#include "harness/placement/cell_processes.h"
#include "harness/run/result_record.h"
#include "harness/run/trial_run.h"
#include "netem/topology/uml_guest.h"

namespace rpclab::harness {
namespace {

// The guest's own commands.log joins the run's, so every command stays replayable.
void adopt_guest_log(const std::string& guest_log, process::CommandLog& log) {
  std::ifstream in(guest_log);
  log.comment("--- commands run inside the user-mode-linux guest ---");
  for (std::string line; std::getline(in, line);) log.comment("guest: " + line);
  log.comment("--- end of guest commands ---");
}

// The guest's record, without the fields the host has already set (which
// trial, where, when, the calls it planned): what the guest measured, and
// its status.
void take_measurements(const TrialRecord& from_guest, TrialRecord& trial) {
  std::optional<uint64_t> planned = trial.dependability.calls_planned;
  trial.status = from_guest.status;
  trial.reason = from_guest.reason;
  trial.hosts = from_guest.hosts;
  trial.settings = from_guest.settings;
  trial.dependability = from_guest.dependability;
  if (planned) trial.dependability.calls_planned = planned;
  trial.speed = from_guest.speed;
  for (const auto& [key, value] : from_guest.other.items()) trial.other.emplace(key, value);
}

}  // namespace

void run_trial_in_guest(const CellConfig& cell, const TrialPlace& place, const netem::Choice& choice,
                        CellEnvironment& env, process::CommandLog& log, TrialRecord& trial) {
  std::string spec = place.dir + "/cell.json", result = place.dir + "/trial-result.json";
  write_file_atomically(spec, cell.to_json().dump(2) + "\n");
  netem::GuestOptions options;
  options.work_dir = place.dir + "/guest";
  std::filesystem::create_directories(options.work_dir);
  options.timeout = std::chrono::seconds(env.cell_time_limit_s + 120);
  options.stdout_path = options.stderr_path = place.dir + "/guest-cell.log";
  options.stop = env.stop;
  netem::GuestRun run = netem::run_in_guest(
      {env.bin_dir + "/rpclab", "cell", "--spec", spec, "--result", result, "--run-id", env.run_id, "--trial",
       std::to_string(place.trial), "--trials", std::to_string(place.trials), "--cell-index",
       std::to_string(place.cell_index)},
      options, log);
  adopt_guest_log(place.dir + "/guest-commands.log", log);
  if (env.stop && env.stop->load()) throw Interrupted();
  std::ifstream in(result);
  if (!run.completed || !in)
    throw CellFailure(fmt::format("the user-mode-linux guest did not complete the trial ({}); console: {}; trial "
                                  "log: {}", run.failure.empty() ? "no result file" : run.failure,
                                  log_tail(run.console_path, 3), log_tail(place.dir + "/guest-cell.log", 3)));
  try {
    take_measurements(nlohmann::json::parse(in).get<TrialRecord>(), trial);
  } catch (const std::exception& e) {
    throw CellFailure(std::string("the guest's result file is not a trial's record: ") + e.what());
  }
  DependabilityTrial& d = trial.dependability;
  if (!d.faults) d.faults = TrialFaults{};
  d.faults->backend = netem::backend_name(netem::BackendKind::kUmlNetem);
  d.faults->backend_reason = choice.reason;
  d.guest = GuestFacts{run.boot_ms, run.total_ms, 1, "timings inside the guest are not comparable with the host's"};
}

int run_cell_command(const GuestTrial& what,
                     const std::function<const Experiment*(const CellConfig&)>& experiment_of) {
  CellConfig cell = CellConfig::from_json(nlohmann::json::parse(read_whole_file(what.spec_path)));
  TrialPlace place{what.cell_index, what.trial, what.trials,
                   std::filesystem::path(what.spec_path).parent_path().string()};
  process::CommandLog log(place.dir + "/guest-commands.log");
  CellEnvironment env;
  env.run_id = what.run_id;
  env.bin_dir = what.bin_dir;
  env.caps = netem::probe_capabilities();
  env.inside_guest = true;
  TrialRunner runner = experiment_of(cell)->trial_runner(place.dir, env);
  TrialRecord trial = run_trial(runner, cell, place, env, log);
  write_file_atomically(what.result_path, nlohmann::json(trial).dump() + "\n");
  return kExitOk;
}

}  // namespace rpclab::harness
