// metadata.json: the run itself (docs/results-format.md, "metadata.json"):
// what ran and how it was asked, when, under which title, by which build
// on which host. Written when a run starts and again when it ends; read
// by report, compare, --resume and report.html.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::harness {

// The machine a run was made on.
struct HostFacts {
  struct Kernel {  // uname
    std::optional<std::string> release, version, machine;
  };
  std::optional<std::string> hostname;
  std::optional<std::string> os;  // PRETTY_NAME of /etc/os-release
  std::optional<Kernel> kernel;
  std::optional<std::string> cpu_model;
  std::optional<int64_t> cpu_count;  // CPUs online
};
void to_json(nlohmann::json& j, const HostFacts::Kernel& k);
void from_json(const nlohmann::json& j, HostFacts::Kernel& k);
void to_json(nlohmann::json& j, const HostFacts& h);
void from_json(const nlohmann::json& j, HostFacts& h);

// The build that made a run: the project's version and the git commit of
// its source, as --version prints them.
struct BuildFacts {
  std::optional<std::string> version, git_commit;
};
void to_json(nlohmann::json& j, const BuildFacts& b);
void from_json(const nlohmann::json& j, BuildFacts& b);

struct RunMetadata {
  std::optional<std::string> run_id;
  std::optional<std::string> experiment;  // dependability, speed
  std::optional<std::string> preset;
  std::optional<std::string> workload;       // speed: echo, allman, kiraly, at-most-once
  std::optional<std::string> wire_capture;   // dependability: --wire-capture
  std::optional<nlohmann::json> invocation;  // every flag given, as {"--preset": ["quick"], ...}
  std::optional<std::string> command_line;   // the whole command, one shell-quoted line
  std::optional<std::string> matrix_digest;  // --resume refuses a folder whose cells differ
  std::optional<std::string> started_at, ended_at;
  std::optional<size_t> cells, trials;
  std::optional<uint64_t> shuffle_seed;  // dependability: the trials' order, kept by --resume
  std::optional<std::string> title;
  std::optional<BuildFacts> rpclab;
  std::optional<HostFacts> host;
  // What `rpclab doctor` finds (netem::capabilities_json), the remote
  // hosts' facts (harness/remote/) and the run's counts (run_cells.h):
  // written for a person, whole, as their writers give them.
  std::optional<nlohmann::json> capabilities, server_host, client_host, summary;
  std::optional<bool> latency_pinned;  // speed: /dev/cpu_dma_latency held
  std::optional<std::string> latency_pin_note;
  // The adapters a preset would run but could not (not built, their build
  // failed), one line each with the reason (docs/adapters.md).
  std::optional<std::vector<std::string>> adapters_skipped;
  nlohmann::json other = nlohmann::json::object();  // fields this build does not know, kept
};
void to_json(nlohmann::json& j, const RunMetadata& m);
void from_json(const nlohmann::json& j, RunMetadata& m);

// `path`'s metadata, or nothing when there is no such file or it is not a
// JSON object of the right shape.
std::optional<RunMetadata> read_run_metadata(const std::string& path);

}  // namespace rpclab::harness
