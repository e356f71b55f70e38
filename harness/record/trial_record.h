// A trial's record: one line of trials.jsonl, and, without the fields that
// say which cell it belongs to, one entry of its cell's `per_trial`. The
// common fields, then what a dependability, a speed or an NFS trial measured
// (docs/results-format.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/causes.h"
#include "harness/record/cell_config.h"
#include "harness/record/classes.h"
#include "harness/record/episodes.h"
#include "harness/record/faults.h"
#include "harness/record/load.h"
#include "harness/record/maybe_null.h"
#include "harness/record/nfs_figures.h"
#include "harness/record/path_figures.h"
#include "harness/record/speed_figures.h"
#include "harness/record/trial_counts.h"

namespace rpclab::harness {

// The records' schema version. A reader takes this one and refuses a newer
// one (records_file.h); fields added within a version are optional.
inline constexpr int kRecordVersion = 1;

// A cell as a record names it: its configuration, and its JSON form as the
// record holds it, which is the cell's identity (--resume and the views
// match records on it). A record this build makes holds config.to_json();
// one read from a file keeps what the file says, so a cell an older build
// wrote keeps its identity even where this build would write it otherwise.
struct RecordedCell {
  CellConfig config;
  nlohmann::json identity;
  static RecordedCell of(const CellConfig& c) { return {c, c.to_json()}; }
  std::string id() const { return identity.dump(); }
};
// The identity as it is; reading also parses the configuration from it
// (std::invalid_argument when it is not one).
void to_json(nlohmann::json& j, const RecordedCell& c);
void from_json(const nlohmann::json& j, RecordedCell& c);

// Each phase of a dependability trial, in seconds: the trial's fixed cost
// beside the clients' own.
struct TrialPhases {
  double link_and_server = 0, load_settle = 0, clients = 0, teardown_and_join = 0;
};
void to_json(nlohmann::json& j, const TrialPhases& p);
void from_json(const nlohmann::json& j, TrialPhases& p);

// A trial run inside a user-mode-linux guest.
struct GuestFacts {
  double boot_ms = 0, total_ms = 0;
  int cpus = 1;
  std::string note;  // that timings inside the guest are not comparable with the host's
};
void to_json(nlohmann::json& j, const GuestFacts& g);
void from_json(const nlohmann::json& j, GuestFacts& g);

// What a dependability trial measured; a field is absent when the trial
// ended (skipped, failed) before it.
struct DependabilityTrial {
  std::optional<uint64_t> calls_planned;
  MaybeNull<std::string> topology_place;  // where it ran; null with --server-host (`hosts` says)
  std::optional<std::vector<EventOccurrence>> events;  // with timed events, also when it failed
  std::optional<std::vector<std::string>> warnings;    // their phases' warnings, when any
  std::optional<nlohmann::json> remote_server;         // --server-host: its watchdog and folder (remote/)
  std::optional<TrialFaults> faults;
  std::optional<ClassCounts> classes;  // with the record's `calls` and `levy_mismatches`
  std::optional<TrialCounts> counts;
  std::optional<TrialEpisodes> episodes;
  std::optional<CausesRecord> causes;
  std::optional<TrialLoad> load;
  std::optional<double> client_wall_s, calls_per_s;
  std::optional<TrialPhases> phases_s;
  std::optional<GuestFacts> guest;
  std::optional<PathFigures> path;  // a cell on a path of replicas (harness/paths/)
};

// What a speed trial measured (a calibration trial: sockperf's figures).
struct SpeedTrial {
  std::optional<bool> latency_pinned;
  LatencyFigures latency;
  std::optional<double> start_barrier_ms;  // parallel clients began together this long after launch
  // How they began together: "gate" (each said it was ready after its
  // warm-up and all were let go at once, common/start_gate.h) or "instant"
  // (a CLOCK_REALTIME instant guessed ahead, --start-at); absent for one.
  std::optional<std::string> start_by;
  // An RPC cell's clients were kept from its first trial (one rpclab-client
  // each, --trials-from-stdin) rather than started for this one; absent in
  // calibration trials and in records from before clients were kept.
  std::optional<bool> clients_kept;
  std::optional<double> client_cpu_us;     // the clients' CPU in all
  std::optional<double> calls_served;      // the server's count, warm-up included
  std::optional<double> echo_served;       // calls_served's name before Allman's operations
  std::optional<double> server_cpu_us;
  std::optional<std::string> server_cpu_from;  // "proc": from /proc, and calls_served is the clients' count
  // On a path with a proxy (harness/paths/): the proxy's CPU in the trial,
  // its workers included; server_cpu_us and calls_served are then the
  // replicas' summed. Absent elsewhere.
  std::optional<double> proxy_cpu_us;
  MaybeNull<WireCounts> wire;              // null on loopback
  std::optional<bool> calibration;
  std::optional<size_t> sockperf_message_size;
};

struct TrialRecord {
  // Which trial: a cell's `per_trial` leaves out what the cell says once
  // (version, experiment, run_id, cell, label, cell_index, trials).
  int version = kRecordVersion;
  std::string experiment;
  std::string run_id;
  RecordedCell cell;
  std::string label;
  std::optional<size_t> cell_index;
  uint32_t trial = 1;
  uint32_t trials = 1;
  std::string trial_dir;
  std::string status = "ok";  // ok, skipped, failed
  std::string reason;
  std::optional<std::string> started_at, ended_at;
  std::optional<double> wall_s;
  std::optional<nlohmann::json> hosts;     // --server-host, --client-host: which hosts ran what (remote/)
  std::optional<nlohmann::json> settings;  // client 1's resolved settings, from its call record's header
  DependabilityTrial dependability;
  SpeedTrial speed;
  NfsTrial nfs;
  nlohmann::json other = nlohmann::json::object();  // fields this build does not know, kept

  bool ok() const { return status == "ok"; }
  // The record of trial `place` of `cell`, run `run_id`: status ok.
  static TrialRecord begin(const CellConfig& cell, size_t cell_index, uint32_t trial, uint32_t trials,
                           const std::string& dir, const std::string& run_id);
};

// A line of trials.jsonl. Reading throws nlohmann::json::exception or
// std::invalid_argument for a record that is damaged.
void to_json(nlohmann::json& j, const TrialRecord& t);
void from_json(const nlohmann::json& j, TrialRecord& t);
// An entry of a cell's `per_trial`: the trial without the cell's fields,
// and back, under the cell it belongs to.
nlohmann::json per_trial_json(const TrialRecord& t);
// `identity`: a trial record with the cell's fields (version, experiment,
// run_id, cell, label, cell_index, trials) set.
TrialRecord trial_in_cell(const nlohmann::json& j, const TrialRecord& identity);

}  // namespace rpclab::harness
