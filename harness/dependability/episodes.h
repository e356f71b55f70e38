// Episodes: a trial's silent errors and extra executions grouped by the event
// that started them. Calls are not independent: one server stall a little
// longer than the retransmit interval can start a stale-reply cascade in
// every client at once, and each client then runs call after call twice for
// the rest of the trial. That is one event (one onset) followed by thousands
// of errors, and counting onsets is what tells it apart from thousands of
// independent errors. The rules, in plain words: docs/results-format.md,
// "Statistics".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::harness {

// One call that went wrong: a silent error, or a call the server ran more
// than once (whatever the client was told). The detector needs only these;
// the calls that went right are the gaps in `index`.
struct ErrorCall {
  uint32_t client_id = 0;
  uint64_t index = 0;  // the call's position in its client's sequence, from 0
  double end_s = 0;    // when the client had its answer, seconds from the clients' start
  bool silent = false;            // silent loss or silent duplicate
  uint32_t extra_executions = 0;  // executions beyond the first
};

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

struct Episodes {
  EpisodeRules rules;         // the rules they were found by
  std::vector<Episode> list;  // by onset
  size_t onsets() const { return list.size(); }
  uint64_t error_calls() const;
  std::optional<double> first_onset_s() const;
  double errors_per_onset() const;  // error calls per onset, 0 without any
  // Totals, the first onset, and the first `listed` episodes.
  nlohmann::json to_json(size_t listed = 20) const;
};

Episodes find_episodes(std::vector<ErrorCall> errors, const EpisodeRules& rules = {});

// What a cell's line needs of one trial's episodes; also read back from
// the trial's record (Episodes::to_json), which lists only the first few.
struct TrialOnsets {
  size_t onsets = 0;
  uint64_t error_calls = 0;
  std::optional<double> first_onset_s;
  static TrialOnsets of(const Episodes& e);
  static TrialOnsets from_json(const nlohmann::json& episodes);
};

// For a cell's line: "onsets per trial 1, 0, 0, 0, 0; 26,691 errors per
// onset; first onset 41.2 s after the clients started" ("" without errors).
std::string onsets_note(const std::vector<TrialOnsets>& trials);
std::string onsets_note(const std::vector<Episodes>& trials);

}  // namespace rpclab::harness
