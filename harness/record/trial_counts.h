// One trial's counts, client by client: the cell runner fills one per trial
// from that trial's join, the trial's record keeps them (`counts`), and the
// statistics over trials (harness/run/trial_stats.h) read them back.
// Per client, not only per trial, because calls are not independent: the
// spread between clients is part of the answer (a cascade hits one client
// thousands of times).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::harness {

struct ClientTrialCounts {
  uint32_t client_id = 0;
  uint64_t calls = 0;
  uint64_t silent = 0;            // silent losses + silent duplicates
  uint64_t duplicate_calls = 0;   // calls that ran twice or more, whatever the client was told
  uint64_t extra_executions = 0;  // executions beyond the first, over those calls
  // Seconds from the trial's clients' start to this client's first silent
  // error and first call that ran twice; empty when there was none.
  std::optional<double> first_silent_s;
  std::optional<double> first_duplicate_s;
};

// One of the fields above, so a statistic can be asked of any of them:
// over_trials(trials, &ClientTrialCounts::silent).
using ClientCount = uint64_t ClientTrialCounts::*;

class TrialCountsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TrialCounts {
  uint32_t trial = 0;  // the trial's number within its cell, from 1
  std::vector<ClientTrialCounts> clients;

  uint64_t total(ClientCount field) const;
  uint64_t calls() const { return total(&ClientTrialCounts::calls); }
};

// {"trial": 1, "clients": [{"client_id", "calls", "silent", ...}]}. Reading
// refuses counts that are not one (missing or mistyped fields, more silent
// errors or duplicate calls than calls) with a TrialCountsError.
void to_json(nlohmann::json& j, const TrialCounts& t);
void from_json(const nlohmann::json& j, TrialCounts& t);

}  // namespace rpclab::harness
