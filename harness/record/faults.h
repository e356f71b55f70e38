// The link's faults as the records hold them (`faults`): the backend that
// made them and why, the spec asked for, what the link's counters measured
// (a trial's, and a cell's pooled over its trials), and what the timed
// events did (`events`, `warnings`).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/maybe_null.h"
#include "netem/spec/fault_spec.h"

namespace rpclab::harness {

// What a trial's and a cell's `faults` both say. A cell that did not run
// says only its backend (or "not chosen"), its loss and its duplication.
struct FaultsApplied {
  std::string backend;                       // none, netem, nftables, uml-netem
  std::optional<std::string> backend_reason;
  std::optional<netem::FaultSpec> spec;
  std::optional<double> loss_pct, dup_pct;   // configured, percent
  // Measured: dropped packets as a percentage of what the link carried,
  // duplicated ones of what the senders offered; null without a backend.
  MaybeNull<double> measured_loss_pct, measured_dup_pct;
  MaybeNull<uint64_t> seed;                  // what the spec asked, with a backend
  std::optional<bool> seed_applied;          // whether the backend could apply it
};

struct TrialFaults : FaultsApplied {
  std::optional<uint64_t> packets_offered;  // in the impaired directions
  // The counters from the faults' start, before and after the clients, in
  // netem::LinkCounters::to_json's form: kept for a person (and left out
  // of results.csv); nothing reads them back.
  std::optional<nlohmann::json> counters_before, counters_after;
};

struct CellFaults : FaultsApplied {
  std::optional<double> packets_offered;  // summed over the trials
  // Each trial's [measured_loss_pct, measured_dup_pct]; the cell's are
  // pooled over the trials' packets.
  std::optional<std::vector<std::array<double, 2>>> measured_per_trial;
};

// Measured loss and duplication pooled over a cell's trials (at least
// one), exactly: each trial's percentages and packets offered give back
// its drops and copies; what was asked is the first trial's.
CellFaults pooled_faults(const std::vector<TrialFaults>& trials);

void to_json(nlohmann::json& j, const TrialFaults& f);
void from_json(const nlohmann::json& j, TrialFaults& f);
void to_json(nlohmann::json& j, const CellFaults& f);
void from_json(const nlohmann::json& j, CellFaults& f);

// One occurrence of a timed event as netem::EventRunner records it
// (docs/results-format.md, "Timed events"). The harness reads its kind,
// its number and each phase's warning; what each phase did (its tool,
// counters, the pid it killed) is netem's, written back as it came.
struct EventOccurrence {
  std::string kind;     // partition, reset, server-crash, server-stall
  size_t occurrence = 0;
  std::vector<std::string> warnings;  // "reset #2 start: ss -K closed none ..."
  nlohmann::json entry;               // the whole occurrence, as netem wrote it
};
// From netem::EventRunner::record()'s entries.
EventOccurrence event_occurrence(const nlohmann::json& entry);
void to_json(nlohmann::json& j, const EventOccurrence& e);
void from_json(const nlohmann::json& j, EventOccurrence& e);

// What shows that a reset occurrence struck: the sockets `ss -K` closed
// (closed_at_server, closed_at_client, at its start) plus the segments its
// reject rules answered with a reset (reset_to_server, reset_to_client, at
// its end). 0: it struck nothing (no connection was open, none sent).
uint64_t resets_seen(const EventOccurrence& e);

// A cell's `events`: how many occurrences each ok trial had, and every
// phase's warning, each prefixed "trial K:".
struct EventsOverTrials {
  std::vector<size_t> occurrences_per_trial;
  std::vector<std::string> warnings;
};
void to_json(nlohmann::json& j, const EventsOverTrials& e);
void from_json(const nlohmann::json& j, EventsOverTrials& e);

}  // namespace rpclab::harness
