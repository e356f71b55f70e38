// What both experiments do around their cells: the run folder, stale
// namespace cleanup, resume, Ctrl-C, progress, and the exit code.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/cell_config.h"
#include "harness/cell_environment.h"
#include "harness/run_folder.h"

namespace rpclab::harness {

struct RunOptions {
  std::string results_root = "results";
  std::string out_dir;     // --out
  std::string resume_dir;  // --resume (results go back into it)
  int cell_time_limit_s = 300;
  nlohmann::json invocation;  // preset and flags, for metadata.json
};

using CellRunner = std::function<nlohmann::json(const CellConfig&, const std::string& cell_dir, CellEnvironment&,
                                                netem::CommandLog&)>;

struct RunSummary {
  std::string dir;
  size_t ok = 0, skipped = 0, failed = 0, resumed = 0;
  bool interrupted = false;
  int exit_code() const;
};

// Runs every cell not already in the resumed folder, appending each record
// as it ends. `before_cells` / `after_cells` bracket the loop (the speed
// experiment holds /dev/cpu_dma_latency there).
RunSummary run_cells(const std::vector<CellConfig>& cells, const RunOptions& options, const CellRunner& runner,
                     RunFolder& folder, const std::atomic<bool>& stop, CellEnvironment& env);

// The outcome of a finished cell in a few words, for its progress line.
std::string outcome_words(const nlohmann::json& record);

std::string program_dir();   // the folder holding this executable (and its siblings)
std::string source_dir();    // the source tree this was built from

}  // namespace rpclab::harness
