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
#include "harness/record/classes.h"

namespace rpclab::harness {

// One call's class, from what the client was told and how many times the
// server ran it (the table above). A duplicate the client was told failed
// is not silent, but it ran twice all the same.
enum class CallClass { kCorrect, kSilentLoss, kSilentDuplicate, kReportedDuplicate, kIndeterminate, kCleanFailure };
CallClass class_of(ErrorKind seen, uint32_t ran);
inline bool is_silent(CallClass c) { return c == CallClass::kSilentLoss || c == CallClass::kSilentDuplicate; }

// The counts (ClassCounts, harness/record/classes.h), one call at a time:
// one call the client recorded, which the server ran `ran` times.
void add_call(ClassCounts& c, ErrorKind seen, uint32_t ran);
// What the ledger says of one client beyond its recorded calls, after
// them: executions no call of its record accounts for (`accounted`: the
// executions of its calls), Levy's mismatches, and whether it had a
// silent error (`silent_before`: silent() before its calls).
void end_client(ClassCounts& c, const Ledger& ledger, uint32_t client_id, uint64_t accounted, uint64_t silent_before);

struct ClientCalls {
  uint32_t client_id = 0;
  const CallRecord* record = nullptr;
};

// The join itself, once per trial, is trial_join.h.

}  // namespace rpclab::harness
