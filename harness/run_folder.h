// A run's folder: results/<timestamp>/ with results.jsonl (appended as each
// cell ends), commands.log, metadata.json, per-cell folders, and the views;
// results/latest points at the newest.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "netem/command_log.h"

namespace rpclab::harness {

class RunFolder {
 public:
  // A new folder under `results_root` (or `explicit_dir` when given, e.g.
  // --out or --resume), and results/latest pointed at it.
  RunFolder(const std::string& results_root, const std::string& explicit_dir);

  const std::string& dir() const { return dir_; }
  const std::string& run_id() const { return run_id_; }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::string results_path() const { return path("results.jsonl"); }
  std::string cell_dir(size_t index, const std::string& label);  // created
  netem::CommandLog& log() { return log_; }

  // One durable line per finished cell: a crash keeps every earlier cell.
  void append(const nlohmann::json& record);
  void write_metadata(const nlohmann::json& metadata);

 private:
  std::string dir_;
  std::string run_id_;
  netem::CommandLog log_;
};

}  // namespace rpclab::harness
