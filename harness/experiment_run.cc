#include "harness/experiment_run.h"

#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "harness/cell_failure.h"
#include "harness/result_record.h"
#include "harness/text_table.h"
#include "netem/topology.h"

namespace rpclab::harness {

std::string program_dir() {
  return std::filesystem::canonical("/proc/self/exe").parent_path().string();
}

std::string source_dir() { return RPCLAB_SOURCE_DIR; }

int RunSummary::exit_code() const {
  if (interrupted) return 130;
  return failed ? 1 : 0;
}

std::string outcome_words(const nlohmann::json& r) {
  std::string status = r.value("status", "?");
  if (status != "ok") return (status == "failed" ? "FAILED: " : "skipped: ") + r.value("reason", "");
  if (r.value("experiment", "") == "dependability") {
    const auto& c = r.at("classes");
    std::string s = fmt::format("{} calls, silent {} (loss {}, dup {}), dup calls {}, indeterminate {}",
                                grouped(r.value("calls", uint64_t{0})), grouped(c.value("silent_loss", uint64_t{0}) +
                                                                                c.value("silent_duplicates", uint64_t{0})),
                                grouped(c.value("silent_loss", uint64_t{0})),
                                grouped(c.value("silent_duplicates", uint64_t{0})),
                                grouped(c.value("duplicate_calls", uint64_t{0})),
                                grouped(c.value("indeterminate", uint64_t{0})));
    if (!r.value("reason", "").empty()) s += " [" + r.value("reason", "") + "]";
    return s;
  }
  return fmt::format("p50 {:.1f} us, p99 {:.1f} us, {:.0f} calls/s", r.value("p50_us", 0.0), r.value("p99_us", 0.0),
                     r.value("calls_per_s", 0.0));
}

RunSummary run_cells(const std::vector<CellConfig>& cells, const RunOptions& options, const CellRunner& runner,
                     RunFolder& folder, const std::atomic<bool>& stop, CellEnvironment& env) {
  RunSummary summary;
  summary.dir = folder.dir();
  std::set<std::string> done;
  std::vector<std::string> warnings;
  for (const nlohmann::json& r : read_records(folder.results_path(), &warnings))
    if (r.value("status", "") != "failed") done.insert(r.at("cell").dump());
  for (const std::string& w : warnings) std::fprintf(stderr, "rpclab: %s\n", w.c_str());

  if (env.caps.root) {
    for (const std::string& ns : netem::remove_stale_namespaces(folder.log()))
      std::fprintf(stderr, "rpclab: removed namespace %s left by a run that no longer exists\n", ns.c_str());
  }
  uint64_t calls = 0;
  for (const CellConfig& c : cells) calls += c.total_calls() * static_cast<uint64_t>(std::max(1, c.trials));
  Progress progress(cells.size(), calls);
  env.progress = &progress;
  env.stop = &stop;
  env.cell_time_limit_s = options.cell_time_limit_s;
  env.run_id = folder.run_id();

  for (size_t i = 0; i < cells.size(); ++i) {
    const CellConfig& cell = cells[i];
    if (stop.load()) {
      summary.interrupted = true;
      break;
    }
    if (done.count(cell.to_json().dump())) {
      ++summary.resumed;
      continue;
    }
    progress.begin_cell(i + 1, cell.label(), cell.total_calls() * static_cast<uint64_t>(std::max(1, cell.trials)));
    folder.log().comment(fmt::format("cell {}/{}: {}", i + 1, cells.size(), cell.label()));
    nlohmann::json record;
    try {
      record = runner(cell, folder.cell_dir(i + 1, cell.label()), env, folder.log());
    } catch (const Interrupted&) {
      summary.interrupted = true;
      progress.note(fmt::format("[{}/{}] {}: interrupted; this cell is not recorded", i + 1, cells.size(),
                                cell.label()));
      break;
    }
    folder.append(record);
    std::string status = record.value("status", "");
    ++(status == "ok" ? summary.ok : status == "skipped" ? summary.skipped : summary.failed);
    progress.end_cell(outcome_words(record));
  }
  env.progress = nullptr;
  return summary;
}

}  // namespace rpclab::harness
