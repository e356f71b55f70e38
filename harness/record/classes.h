// The classes of a dependability trial or cell (every call in one, by the
// table in harness/dependability/classify.h) and their rates per million
// calls: the record's `calls`, `classes`, `levy_mismatches`,
// `silent_per_million` and `rates_per_million`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/kit/stats.h"

namespace rpclab::harness {

struct ClassCounts {
  uint64_t calls = 0;               // calls the clients issued
  uint64_t correct = 0;
  uint64_t silent_loss = 0;
  uint64_t duplicate_calls = 0;     // calls that ran twice or more
  uint64_t extra_executions = 0;    // executions beyond the first, over those calls
  uint64_t silent_duplicates = 0;   // duplicate calls the client saw succeed
  uint64_t indeterminate = 0;
  uint64_t clean_failure = 0;
  uint64_t unissued_executions = 0; // ledger entries no client record accounts for
  uint64_t levy_mismatches = 0;     // the server's own sequence check (Levy 1989)
  uint64_t unrecorded = 0;          // executions the ledger could not hold (cap)
  // Clients with at least one silent error. Calls are not independent: one
  // late UDP reply can make every later call of that client run twice, so
  // a cell's silent errors often come from a few clients, not from all.
  // Records made before it was counted have none.
  std::optional<uint64_t> clients_with_silent_errors = 0;
  std::map<std::string, uint64_t> client_errors;  // reported errors by kind

  uint64_t silent() const { return silent_loss + silent_duplicates; }
  // Calls the server ran although the client was told they failed
  // (indeterminate, and duplicates told failure): what a remedy that
  // leaves no silent error or duplicate still costs the caller, who must
  // find out whether the call ran.
  uint64_t ran_but_told_failed() const {
    return indeterminate + duplicate_calls - std::min(duplicate_calls, silent_duplicates);
  }
  // The counts of several trials add up; clients_with_silent_errors then
  // counts client-trials.
  ClassCounts& operator+=(const ClassCounts& other);
};

// The `classes` object: every count but `calls` and `levy_mismatches`,
// which the record holds beside it (put_classes, take_classes).
void to_json(nlohmann::json& j, const ClassCounts& c);
void from_json(const nlohmann::json& j, ClassCounts& c);

// value, ci95_low, ci95_high, method.
void to_json(nlohmann::json& j, const RatePerMillion& r);
void from_json(const nlohmann::json& j, RatePerMillion& r);

// `rates_per_million`: the classes that are proportions of the calls
// (Wilson) and the counts that can exceed them (Poisson). Older records
// lack some (extra_executions).
struct ClassRates {
  std::optional<RatePerMillion> silent_loss, silent_duplicates, duplicate_calls, indeterminate;
  std::optional<RatePerMillion> levy_mismatches, extra_executions;
  static ClassRates of(const ClassCounts& c);
};
void to_json(nlohmann::json& j, const ClassRates& r);
void from_json(const nlohmann::json& j, ClassRates& r);

}  // namespace rpclab::harness
