// What both experiments do before and after their cells: the run folder
// (new, --out or --resume), the command line and metadata. The loop over
// the trials is run_cells.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/install_paths.h"
#include "harness/record/cell_config.h"
#include "harness/run/run_folder.h"

namespace rpclab::harness {

struct RunOptions {
  std::string results_root = "results";
  std::string out_dir;     // --out
  std::string resume_dir;  // --resume (results go back into it)
  int cell_time_limit_s = 300;
  uint64_t shuffle_seed = 0;  // the trial order's seed (dependability), recorded in metadata.json
  nlohmann::json invocation;  // preset and flags, for metadata.json
  std::string title;          // --title: the run's name (metadata.json, report.txt)
  bool json_lines = false;    // --format json: each finished cell's record on stdout
};

// The matrix a folder holds, so --resume can refuse a different one.
std::string matrix_digest(const std::vector<CellConfig>& cells);
// Refuses (std::invalid_argument, a usage error) to resume a folder whose
// run had another matrix, quoting the command that made it.
void check_resume(const std::string& dir, const std::vector<CellConfig>& cells);

// What open_run_folder and the resume settle check of the folders the
// user named, writing nothing, for --dry-run: the same refusals, printed,
// and kExitUsage; kExitOk when the real run would take them.
int check_run_folder(const RunOptions& options, const std::vector<CellConfig>& cells, const std::string& experiment,
                     std::optional<uint64_t> shuffle_seed);
// The run's folder: new, --out, or --resume (checked against `cells`).
// Returns null after printing why, with *exit_code set (3 setup, 2 usage).
std::unique_ptr<RunFolder> open_run_folder(const RunOptions& options, const std::vector<CellConfig>& cells,
                                           const std::string& experiment, int* exit_code);

// The seed of the trials' order: on --resume the one the run recorded
// (a different --shuffle-seed is refused, std::invalid_argument), else
// the one given, else a fresh one.
uint64_t settle_shuffle_seed(const std::string& dir, bool resume, std::optional<uint64_t> given);

// The whole command line as typed, for metadata and the resume hint.
void remember_command_line(int argc, char** argv);
const std::string& command_line();
std::string resume_hint(const RunFolder& folder);

// `line`, a command as process::shell_line() wrote it, without any
// --resume of its own and ending in one --resume `dir`: the command that
// continues the run in `dir`.
std::string resume_command(const std::string& line, const std::string& dir);
// The command metadata.json records for the run in `folder`: on --resume
// the one that started the run (the flags that made its cells; a resume
// adds only --resume), else this one.
std::string settle_command_line(const RunFolder& folder, bool resume);

// Levy's and Netwise's 1989 figures (levy1989-*.csv): share/rpclab/data
// when installed, docs/data of the source tree otherwise.
std::string reference_data_dir();

}  // namespace rpclab::harness
