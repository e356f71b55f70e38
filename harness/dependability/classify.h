// The join at the heart of the dependability experiment: every call a client
// issued, against how many times the server's ledger says it ran.
//
//   client saw | server ran | class
//   ok         | once       | correct
//   ok         | never      | silent loss
//   anything   | twice+     | duplicate execution (silent when the client saw ok)
//   error      | once       | indeterminate: reported as failed, but it ran
//   error      | never      | clean failure
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/call_record.h"
#include "server/ledger.h"

namespace rpclab::harness {

// One call's class, from what the client was told and how many times the
// server ran it (the table above). A duplicate the client was told failed
// is not silent, but it ran twice all the same.
enum class CallClass { kCorrect, kSilentLoss, kSilentDuplicate, kReportedDuplicate, kIndeterminate, kCleanFailure };
CallClass class_of(ErrorKind seen, uint32_t ran);
inline bool is_silent(CallClass c) { return c == CallClass::kSilentLoss || c == CallClass::kSilentDuplicate; }

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
  uint64_t clients_with_silent_errors = 0;
  std::map<std::string, uint64_t> client_errors;  // reported errors by kind

  uint64_t silent() const { return silent_loss + silent_duplicates; }
  // One call the client recorded, which the server ran `ran` times.
  void add_call(ErrorKind seen, uint32_t ran);
  // What the ledger says of one client beyond its recorded calls, after
  // them: executions no call of its record accounts for (`accounted`: the
  // executions of its calls), Levy's mismatches, and whether it had a
  // silent error (`silent_before`: silent() before its calls).
  void end_client(const Ledger& ledger, uint32_t client_id, uint64_t accounted, uint64_t silent_before);
  nlohmann::json to_json() const;
  // The counts of several trials add up; clients_with_silent_errors then
  // counts client-trials.
  ClassCounts& operator+=(const ClassCounts& other);
  // Back from a record: its "classes" object, "calls" and "levy_mismatches".
  static ClassCounts from_record(const nlohmann::json& record);
};

struct ClientCalls {
  uint32_t client_id = 0;
  const CallRecord* record = nullptr;
};

// The join itself, once per trial, is trial_join.h.

}  // namespace rpclab::harness
