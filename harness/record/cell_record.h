// A cell's record: one line of results.jsonl (docs/results-format.md). The
// common fields, then what a dependability or a speed cell measured over
// its trials, then the trials themselves. Every view (tables, plots, CSV,
// report.html, compare) reads these, and nothing else.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/over_trials.h"
#include "harness/record/trial_record.h"
#include "transport/settings.h"

namespace rpclab::harness {

struct FailedTrial {
  uint32_t trial = 0;
  std::string reason;
};
void to_json(nlohmann::json& j, const FailedTrial& f);
void from_json(const nlohmann::json& j, FailedTrial& f);

// What a dependability cell says over its ok trials. docs/results-format.md
// marks some fields stable: every record has them, a cell that did not run
// as null (keep_stable_fields).
// The transport settings a dependability record holds at its top level.
const std::vector<const TransportSetting*>& top_level_settings();

struct DependabilityCell {
  std::optional<uint64_t> calls_planned;
  // The settings the dependability matrix varied before settings were rows
  // (drc, retry_timeout_ms, drain_stale_replies: top_level_settings()) sit
  // at the record's top level too, as their rows write them, where readers
  // of results.jsonl have them; stable. A newer setting is in the cell only.
  std::map<std::string, nlohmann::json> top_level_settings;
  std::optional<std::string> retry_policy;  // none, library, app:K
  std::optional<bool> at_most_once;
  MaybeNull<std::string> topology_place;    // the trials' places; null when none says (--server-host)
  // With the record's `calls` and `levy_mismatches` (stable; null: every
  // count null).
  MaybeNull<ClassCounts> classes;
  MaybeNull<RatePerMillion> silent_per_million;  // stable (null: value and interval null)
  std::optional<ClassRates> rates_per_million;
  std::optional<OverTrialsFigures> over_trials;
  MaybeNull<CausesRecord> causes;  // null: no trial had them
  std::optional<CellEpisodes> episodes;
  std::optional<CellLoad> load;      // stable
  std::optional<CellFaults> faults;  // stable
  std::optional<double> client_wall_s, calls_per_s;
  std::optional<EventsOverTrials> events;  // cells with timed events
  std::optional<PathFigures> path;         // a path of replicas: its trials' summed
};

// What a speed cell measured over its trials (a calibration cell: what
// sockperf gave).
struct SpeedCell {
  MaybeNull<size_t> size;  // stable: ECHO bytes, N doubles, or the photo's bytes
  std::optional<std::string> op;
  MaybeNull<uint64_t> calls_per_trial;  // stable
  std::optional<uint64_t> warmup;
  MaybeNull<bool> latency_pinned;       // stable
  LatencyFigures latency;               // p50_us .. max_us, seconds_per_100_calls, calls_per_s: stable
  MaybeNull<CpuPerCall> cpu_us_per_call;  // stable (null: client and server null)
  MaybeNull<WirePerCall> wire;            // null: not counted (loopback)
  MaybeNull<std::string> floor_transport;
  MaybeNull<double> ratio_to_floor;  // stable; null: no floor measured
  MaybeNull<WelchVsFloor> welch_vs_floor;
  MaybeNull<double> ratio_to_sockperf;   // floors with a calibration
  std::optional<bool> calibration;
  std::optional<size_t> sockperf_message_size;
};

struct CellRecord {
  int version = kRecordVersion;
  std::string experiment;  // dependability, speed, nfs
  std::string run_id;
  RecordedCell cell;
  std::string label, transport, topology, connect;
  int clients = 1;
  std::string library;
  int timeout_ms = 0;
  bool timeout_is_default = false;
  std::string kernel;
  std::string status = "ok";  // ok, skipped, failed
  std::string reason;
  std::optional<size_t> cell_index;  // 1-based, in the matrix
  std::string cell_dir;
  std::string started_at, ended_at;
  double wall_s = 0;
  MaybeNull<uint32_t> trials;  // stable
  std::optional<size_t> trials_ok;
  std::optional<std::vector<FailedTrial>> trials_failed;
  std::optional<nlohmann::json> settings;  // client 1's resolved settings, from its call record's header
  DependabilityCell dependability;
  SpeedCell speed;
  NfsCell nfs;
  std::optional<std::vector<TrialRecord>> per_trial;
  nlohmann::json other = nlohmann::json::object();  // fields this build does not know, kept

  bool ok() const { return status == "ok"; }
  bool is(const char* name) const { return experiment == name; }
  // The fields every record carries, for `cell` run `run_id`: its identity,
  // configuration and environment, status ok.
  static CellRecord begin(const CellConfig& cell, const std::string& run_id);
};

// A line of results.jsonl, as it is: a record read and written again says
// what it said. Reading throws nlohmann::json::exception or
// std::invalid_argument for a record that is damaged.
void to_json(nlohmann::json& j, const CellRecord& r);
void from_json(const nlohmann::json& j, CellRecord& r);

// Every field docs/results-format.md marks stable, present in the record:
// a cell that was skipped or failed carries them as null (its faults and
// load as what it was asked) rather than leaving them out, so tools can
// read every record alike. The run loop does it before it appends a record.
void keep_stable_fields(CellRecord& record);

}  // namespace rpclab::harness
