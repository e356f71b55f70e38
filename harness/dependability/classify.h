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

#include "core/call_record.h"
#include "core/ledger.h"
#include "harness/record/classes.h"

namespace rpclab::harness {

// One call's class, from what the client was told and how many times the
// server ran it (the table above). A duplicate the client was told failed
// is not silent, but it ran twice all the same.
enum class CallClass { kCorrect, kSilentLoss, kSilentDuplicate, kReportedDuplicate, kIndeterminate, kCleanFailure };
CallClass class_of(ErrorKind seen, uint32_t ran);
inline bool is_silent(CallClass c) { return c == CallClass::kSilentLoss || c == CallClass::kSilentDuplicate; }

struct ClientCalls {
  uint32_t client_id = 0;
  const CallRecord* record = nullptr;
};

ClassCounts classify(const std::vector<ClientCalls>& clients, const Ledger& ledger);

}  // namespace rpclab::harness
