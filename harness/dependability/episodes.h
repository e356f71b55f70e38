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

#include "harness/record/episodes.h"

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

struct Episodes {
  EpisodeRules rules;         // the rules they were found by
  std::vector<Episode> list;  // by onset
  size_t onsets() const { return list.size(); }
  uint64_t error_calls() const;
  std::optional<double> first_onset_s() const;
  double errors_per_onset() const;  // error calls per onset, 0 without any
};

Episodes find_episodes(std::vector<ErrorCall> errors, const EpisodeRules& rules = {});

// The trial record's `episodes`: the totals, the first onset, and the
// first `listed` episodes.
TrialEpisodes episodes_record(const Episodes& e, size_t listed = 20);

// For a cell's line: "onsets per trial 1, 0, 0, 0, 0; 26,691 errors per
// onset; first onset 41.2 s after the clients started" ("" without errors).
std::string onsets_note(const std::vector<TrialEpisodes>& trials);
std::string onsets_note(const std::vector<Episodes>& trials);

}  // namespace rpclab::harness
