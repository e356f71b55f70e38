// A run's folder: results/<timestamp>/ with results.jsonl (appended as each
// cell ends), trials.jsonl (as each trial ends), commands.log,
// metadata.json, per-cell folders, and the views; results/latest points at
// the newest. A run folder holds one run: a new run goes into a new or
// empty folder, and only --resume reopens one.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/record/run_metadata.h"

#include "process/command_log.h"

namespace rpclab::harness {

enum class FolderUse {
  kNew,     // a new run: a timestamped folder, or `explicit_dir` if it is absent or empty
  kResume,  // --resume: `explicit_dir` must already hold a run
};

// The check RunFolder makes of a folder the user named, writing nothing (a
// dry run makes it too): throws std::invalid_argument when `dir` cannot be
// used so (a new run into a folder holding a run or other files, a resume
// of one that holds none).
void check_folder_use(const std::string& dir, FolderUse use);

class RunFolder {
 public:
  // Opens the run's folder and points results/latest at it. Throws
  // std::invalid_argument (a usage error) when `explicit_dir` would mix
  // this run with another run or with files that are not this run's, and
  // SetupError when the folder cannot be made.
  RunFolder(const std::string& results_root, const std::string& explicit_dir, FolderUse use);
  ~RunFolder();  // syncs what a batch left unsynced
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;

  const std::string& dir() const { return dir_; }
  // Unique across folders, machines and --out names; kept by a resume.
  const std::string& run_id() const { return run_id_; }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::string results_path() const { return path("results.jsonl"); }
  std::string trials_path() const { return path("trials.jsonl"); }
  std::string cell_dir(size_t index, const std::string& label);  // created
  process::CommandLog& log() { return log_; }

  // One durable line per finished cell (results.jsonl) or trial
  // (trials.jsonl): a crash keeps every earlier one.
  void append(const nlohmann::json& record) { append_line(results_path(), record); }
  void append_trial(const nlohmann::json& trial) { append_line(trials_path(), trial); }
  // From now on the lines (and whatever the trials wrote with
  // Sync::kLater) reach the disk in one syncfs at most `every` apart and
  // when the folder closes, instead of an fsync per line: for an
  // experiment of thousands of short trials (speed), where the fsyncs cost
  // more than the calls. A power cut can then lose the last batch, which
  // --resume runs again; a crash of rpclab loses nothing.
  void sync_in_batches(std::chrono::milliseconds every);
  void sync_now();
  // Writes metadata.json, with the run_id added.
  void write_metadata(RunMetadata metadata);

 private:
  void append_line(const std::string& file, const nlohmann::json& record);
  std::string dir_;
  std::chrono::milliseconds batch_{0};  // 0: an fsync per line
  std::chrono::steady_clock::time_point synced_at_{};
  bool unsynced_ = false;
  std::string run_id_;
  process::CommandLog log_;
};

}  // namespace rpclab::harness
