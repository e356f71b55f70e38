#include "harness/cli/time_constants_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "common/atomic_file.h"
#include "common/cli_support.h"
#include "harness/kit/text_table.h"
#include "harness/record/records_file.h"
#include "harness/run/time_estimate.h"

namespace rpclab::harness {
namespace {

struct Flags {
  std::vector<std::string> run_dirs;
  std::string table;
};

int run(const Flags& f) {
  std::vector<TrialTime> times;
  for (const std::string& dir : f.run_dirs) {
    std::string path = dir + "/trials.jsonl";
    if (!std::filesystem::exists(path)) {
      std::fprintf(stderr, "rpclab time-constants: %s is not a run folder (it has no trials.jsonl): give the folder "
                   "a run wrote, e.g. results/latest\n", dir.c_str());
      return kExitUsage;
    }
    std::vector<std::string> warnings;
    for (const TrialRecord& t : read_trial_records(path, &warnings))
      if (std::optional<TrialTime> time = trial_time(t)) times.push_back(*time);
    for (const std::string& w : warnings) std::fprintf(stderr, "rpclab time-constants: %s\n", w.c_str());
  }
  if (times.empty()) {
    std::fprintf(stderr, "rpclab time-constants: no finished trial in %s: nothing to measure\n",
                 fmt::format("{}", fmt::join(f.run_dirs, ", ")).c_str());
    return kExitUsage;
  }
  TimeConstants fresh = fit_time_constants(times);
  TimeConstants merged = merge_time_constants(read_time_constants(f.table), fresh);
  // One row a line: a refresh's diff shows which constants moved.
  std::string text = "{\"rows\": [\n";
  for (size_t i = 0; i < merged.rows.size(); ++i)
    text += "  " + nlohmann::json(merged.rows[i]).dump() + (i + 1 < merged.rows.size() ? ",\n" : "\n");
  text += "]}\n";
  write_file_atomically(f.table, text);
  TextTable table({"experiment", "block", "transport", "topology", "connect", "ms/call", "+ms/MiB", "overhead ms",
                   "trials"});
  for (const TimeConstant& c : fresh.rows)
    table.add({c.experiment, c.block, c.transport, c.topology, c.connect, fmt::format("{:.3f}", c.call_s * 1e3),
               fmt::format("{:.2f}", c.call_s_per_byte * 1e3 * (1 << 20)),
               fmt::format("{:.1f}", c.overhead_s * 1e3), std::to_string(c.trials)});
  std::printf("%s", table.render().c_str());
  std::printf("%zu rows from %zu trials written to %s (%zu rows in all)\n", fresh.rows.size(), times.size(),
              f.table.c_str(), merged.rows.size());
  return kExitOk;
}

}  // namespace

std::function<int()> add_time_constants_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  f->table = time_constants_path();
  CLI::App* cmd = app.add_subcommand(
      "time-constants", "measure again, from runs' trials.jsonl, the constants a run's estimate of its time is made "
                        "from: each kind of cell's time per call and per-trial overhead");
  cmd->add_option("run", f->run_dirs, "run folders (results/<timestamp>)")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--table", f->table, "the table to update (rows of other kinds of cells are kept)")
      ->capture_default_str();
  return [f] { return run(*f); };
}

}  // namespace rpclab::harness
