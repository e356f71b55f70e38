#include "harness/guest_cell.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/cli_support.h"
#include "harness/cell_failure.h"
#include "harness/cell_processes.h"
#include "harness/dependability_cell.h"
#include "harness/result_record.h"
#include "netem/uml_guest.h"

namespace rpclab::harness {
namespace {

// The guest's own commands.log joins the run's, so every command stays replayable.
void adopt_guest_log(const std::string& guest_log, netem::CommandLog& log) {
  std::ifstream in(guest_log);
  log.comment("--- commands run inside the user-mode-linux guest ---");
  for (std::string line; std::getline(in, line);) log.comment("guest: " + line);
  log.comment("--- end of guest commands ---");
}

}  // namespace

nlohmann::json run_cell_in_guest(const CellConfig& cell, const std::string& cell_dir, const netem::Choice& choice,
                                 CellEnvironment& env, netem::CommandLog& log) {
  std::string spec = cell_dir + "/cell.json", result = cell_dir + "/cell-result.json";
  write_file_atomically(spec, cell.to_json().dump(2) + "\n");
  std::filesystem::remove(result);
  netem::GuestOptions options;
  options.work_dir = cell_dir + "/guest";
  std::filesystem::create_directories(options.work_dir);
  options.timeout = std::chrono::seconds(env.cell_time_limit_s + 120);
  options.stdout_path = options.stderr_path = cell_dir + "/guest-cell.log";
  options.stop = env.stop;
  netem::GuestRun run = netem::run_in_guest(
      {env.bin_dir + "/rpclab", "cell", "--spec", spec, "--result", result, "--run-id", env.run_id}, options, log);
  adopt_guest_log(cell_dir + "/guest-commands.log", log);
  if (env.stop && env.stop->load()) throw Interrupted();

  nlohmann::json record;
  std::ifstream in(result);
  if (run.completed && in) {
    try {
      record = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      record = base_record(cell, env.run_id);
      mark(record, "failed", std::string("the guest's result file is not JSON: ") + e.what());
    }
  } else {
    record = base_record(cell, env.run_id);
    mark(record, "failed",
         fmt::format("the user-mode-linux guest did not complete the cell ({}); console: {}; cell log: {}",
                     run.failure.empty() ? "no result file" : run.failure, log_tail(run.console_path, 3),
                     log_tail(cell_dir + "/guest-cell.log", 3)));
  }
  if (!record.contains("faults") || !record["faults"].is_object()) record["faults"] = nlohmann::json::object();
  record["faults"]["backend"] = netem::backend_name(netem::BackendKind::kUmlNetem);
  record["faults"]["backend_reason"] = choice.reason;
  record["guest"] = {{"boot_ms", run.boot_ms}, {"total_ms", run.total_ms}, {"cpus", 1},
                     {"note", "timings inside the guest are not comparable with the host's"}};
  return record;
}

int run_cell_command(const std::string& spec_path, const std::string& result_path, const std::string& run_id,
                     const std::string& bin_dir) {
  CellConfig cell = CellConfig::from_json(nlohmann::json::parse(read_whole_file(spec_path)));
  std::string cell_dir = std::filesystem::path(spec_path).parent_path().string();
  netem::CommandLog log(cell_dir + "/guest-commands.log");
  CellEnvironment env;
  env.run_id = run_id;
  env.bin_dir = bin_dir;
  env.caps = netem::probe_capabilities();
  env.inside_guest = true;
  nlohmann::json record = run_dependability_cell(cell, cell_dir, env, log);
  write_file_atomically(result_path, record.dump() + "\n");
  return kExitOk;
}

}  // namespace rpclab::harness
