#include "harness/run/experiment_run.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "common/cli_support.h"
#include "common/install_paths.h"
#include "harness/record/records_file.h"
#include "harness/record/run_metadata.h"
#include "harness/run/cell_failure.h"
#include "harness/run/result_record.h"
#include "harness/run/trial_schedule.h"
#include "process/command_log.h"
#include "netem/topology/topology.h"

namespace rpclab::harness {

namespace {

std::string& stored_command_line() {
  static std::string line;
  return line;
}

}  // namespace

void remember_command_line(int argc, char** argv) {
  std::vector<std::string> words(argv, argv + argc);
  stored_command_line() = process::shell_line(words);
}

const std::string& command_line() { return stored_command_line(); }

namespace {

// `line` without its --resume and the folder after it ("--resume DIR" or
// "--resume=DIR"). A word of shell_line() is safe characters, '...' and
// \' (a quote inside a quoted word).
std::string without_resume(const std::string& line) {
  static const std::regex resume(R"(( |^)--resume(=| )('[^']*'|\\.|[^ '\\])+)");
  return std::regex_replace(line, resume, "");
}

}  // namespace

std::string resume_command(const std::string& line, const std::string& dir) {
  return without_resume(line) + " --resume " + process::shell_line({dir});
}

std::string resume_hint(const RunFolder& folder) { return resume_command(command_line(), folder.dir()); }

std::string settle_command_line(const RunFolder& folder, bool resume) {
  std::optional<RunMetadata> meta = resume ? read_run_metadata(folder.path("metadata.json")) : std::nullopt;
  // A run resumed by an earlier build recorded the resume command: its --resume goes.
  return without_resume(meta && meta->command_line ? *meta->command_line : command_line());
}

std::string matrix_digest(const std::vector<CellConfig>& cells) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a: stable across builds, unlike std::hash
  for (const CellConfig& c : cells)
    for (char ch : c.id() + "\n") h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

void check_resume(const std::string& dir, const std::vector<CellConfig>& cells) {
  check_record_versions(dir + "/results.jsonl");
  check_record_versions(dir + "/trials.jsonl");
  std::optional<RunMetadata> meta = read_run_metadata(dir + "/metadata.json");
  if (!meta || meta->matrix_digest.value_or("") == matrix_digest(cells)) return;
  std::string own = meta->command_line ? resume_command(*meta->command_line, dir) : "(not recorded)";
  throw std::invalid_argument("--resume: " + dir +
                              " holds a run with other cells (different preset or flags); resume it with its own "
                              "command: " + own);
}

uint64_t settle_shuffle_seed(const std::string& dir, bool resume, std::optional<uint64_t> given) {
  if (resume) {
    std::optional<RunMetadata> meta = read_run_metadata(dir + "/metadata.json");
    if (meta && meta->shuffle_seed) {
      uint64_t recorded = *meta->shuffle_seed;
      if (given && *given != recorded)
        throw std::invalid_argument(fmt::format("--shuffle-seed {}: the run in {} was started with seed {}, and a "
                                                "resumed run keeps its order: drop --shuffle-seed",
                                                *given, dir, recorded));
      return recorded;
    }
  }
  return given ? *given : fresh_seed();
}

namespace {

// --out and --resume naming two folders would leave one of them unused
// without a word; the same folder twice is what the resume hint prints.
void refuse_two_folders(const RunOptions& options) {
  if (options.out_dir.empty() || options.resume_dir.empty()) return;
  std::error_code ec;
  if (std::filesystem::equivalent(options.out_dir, options.resume_dir, ec)) return;
  throw std::invalid_argument("--out " + options.out_dir + " and --resume " + options.resume_dir +
                              " name two folders; a resumed run goes on in its own folder: drop --out");
}

// The cells start rpclab-server and rpclab-client from this program's
// folder. A user who cannot reach them (a build under another user's 0700
// home) is told so before anything runs, not by every cell failing.
void check_programs_runnable() {
  std::string dir = program_dir();
  for (const char* name : {"rpclab-server", "rpclab-client"}) {
    std::string program = dir + "/" + name;
    if (::access(program.c_str(), X_OK) == 0) continue;
    int why = errno;
    const passwd* user = ::getpwuid(::getuid());
    throw SetupError(fmt::format("cannot run {} as user {}: {}. Build rpclab in a folder this user can reach "
                                 "(every folder on the path searchable by it), or run as that folder's owner",
                                 program, user ? user->pw_name : std::to_string(::getuid()), std::strerror(why)));
  }
}

}  // namespace

std::unique_ptr<RunFolder> open_run_folder(const RunOptions& options, const std::vector<CellConfig>& cells,
                                           const std::string& experiment, int* exit_code) {
  try {
    refuse_two_folders(options);
    check_programs_runnable();
    bool resume = !options.resume_dir.empty();
    auto folder = std::make_unique<RunFolder>(options.results_root, resume ? options.resume_dir : options.out_dir,
                                              resume ? FolderUse::kResume : FolderUse::kNew);
    if (resume) check_resume(folder->dir(), cells);
    return folder;
  } catch (const SetupError& e) {
    std::fprintf(stderr, "rpclab %s: %s\n", experiment.c_str(), e.what());
    *exit_code = kExitSetup;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "rpclab %s: %s\n", experiment.c_str(), e.what());
    *exit_code = kExitUsage;
  }
  return nullptr;
}

int check_run_folder(const RunOptions& options, const std::vector<CellConfig>& cells, const std::string& experiment,
                     std::optional<uint64_t> shuffle_seed) {
  try {
    refuse_two_folders(options);
    if (!options.resume_dir.empty()) {
      check_folder_use(options.resume_dir, FolderUse::kResume);
      check_resume(options.resume_dir, cells);
      settle_shuffle_seed(options.resume_dir, true, shuffle_seed);
    } else if (!options.out_dir.empty()) {
      check_folder_use(options.out_dir, FolderUse::kNew);
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "rpclab %s: %s\n", experiment.c_str(), e.what());
    return kExitUsage;
  }
  return kExitOk;
}

std::string reference_data_dir() { return installed_or("data", RPCLAB_SOURCE_DIR "/docs/data"); }

}  // namespace rpclab::harness
