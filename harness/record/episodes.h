// Episodes as the records hold them: a trial's (`episodes`: the totals,
// the first onset and the first episodes) and a cell's over its trials
// (`episodes`: onsets per trial, the note). What an episode is, and how
// they are found: harness/dependability/episodes.h; the rules in plain
// words: docs/results-format.md, "Statistics".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::harness {

struct EpisodeRules {
  // A client's run of errors ends after this many calls in a row that went
  // right; its next error is a new onset for that client.
  uint64_t clean_calls = 10;
  // Onsets in different clients (or again in one) within this many seconds
  // of an episode's first onset belong to that episode: one stall releases
  // every waiting client's reply within a few ms.
  double window_s = 0.010;
};

struct Episode {
  double onset_s = 0;         // the first error's end, from the clients' start
  double last_error_s = 0;    // the last error of its runs
  double onset_spread_s = 0;  // from the first to the last client's onset in it
  uint32_t clients = 0;       // distinct clients it hit
  uint64_t error_calls = 0;
  uint64_t silent = 0;
  uint64_t extra_executions = 0;
};

// A trial's episodes: every total, and only the first few episodes.
struct TrialEpisodes {
  EpisodeRules rules;
  size_t onsets = 0;
  uint64_t error_calls = 0;
  double errors_per_onset = 0;
  std::optional<double> first_onset_s;  // none without an onset
  std::vector<Episode> listed;          // the first ones, by onset
};

// A cell's episodes over its ok trials.
struct CellEpisodes {
  EpisodeRules rules;
  std::vector<size_t> onsets_per_trial;
  std::vector<std::optional<double>> first_onset_s_per_trial;
  std::string note;  // "onsets per trial 1, 0, ...; ... errors per onset; first onset ..."
};

void to_json(nlohmann::json& j, const EpisodeRules& r);
void from_json(const nlohmann::json& j, EpisodeRules& r);
void to_json(nlohmann::json& j, const Episode& e);
void from_json(const nlohmann::json& j, Episode& e);
void to_json(nlohmann::json& j, const TrialEpisodes& e);
void from_json(const nlohmann::json& j, TrialEpisodes& e);
void to_json(nlohmann::json& j, const CellEpisodes& e);
void from_json(const nlohmann::json& j, CellEpisodes& e);

}  // namespace rpclab::harness
