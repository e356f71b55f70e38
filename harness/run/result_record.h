// Helpers for the writers of records (harness/record/ holds the types):
// a record's status, and the time stamps every record carries.
#pragma once

#include <string>

#include "harness/record/cell_record.h"
#include "harness/record/trial_record.h"

namespace rpclab::harness {

// Sets `status` (ok, skipped, failed) and `reason`.
void mark(CellRecord& record, const std::string& status, const std::string& reason);
void mark(TrialRecord& record, const std::string& status, const std::string& reason);

// ISO 8601 UTC with milliseconds: "2026-11-22T21:32:49.243Z".
std::string iso8601_now();

}  // namespace rpclab::harness
