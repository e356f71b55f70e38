// What both experiments do around their cells: the run folder, stale
// namespace cleanup, resume, Ctrl-C, progress, and the exit code.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
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

// The matrix a folder holds, so --resume can refuse a different one.
std::string matrix_digest(const std::vector<CellConfig>& cells);
// Refuses (std::invalid_argument, a usage error) to resume a folder whose
// run had another matrix, quoting the command that made it.
void check_resume(const RunFolder& folder, const std::vector<CellConfig>& cells);

// The run's folder: new, --out, or --resume (checked against `cells`).
// Returns null after printing why, with *exit_code set (3 setup, 2 usage).
std::unique_ptr<RunFolder> open_run_folder(const RunOptions& options, const std::vector<CellConfig>& cells,
                                           const std::string& experiment, int* exit_code);

// The whole command line as typed, for metadata and the resume hint.
void remember_command_line(int argc, char** argv);
const std::string& command_line();
std::string resume_hint(const RunFolder& folder);

std::string program_dir();   // the folder holding this executable (and its siblings)
std::string source_dir();    // the source tree this was built from

}  // namespace rpclab::harness
