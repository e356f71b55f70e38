#include "harness/dependability/classify.h"

namespace rpclab::harness {
CallClass class_of(ErrorKind seen, uint32_t ran) {
  bool ok = seen == ErrorKind::kOk;
  if (ran >= 2) return ok ? CallClass::kSilentDuplicate : CallClass::kReportedDuplicate;
  if (ok) return ran == 1 ? CallClass::kCorrect : CallClass::kSilentLoss;
  return ran == 1 ? CallClass::kIndeterminate : CallClass::kCleanFailure;
}

void add_call(ClassCounts& c, ErrorKind seen, uint32_t ran) {
  ++c.calls;
  if (seen != ErrorKind::kOk) ++c.client_errors[std::string(error_kind_name(seen))];
  if (ran >= 2) {
    ++c.duplicate_calls;
    c.extra_executions += ran - 1;
  }
  switch (class_of(seen, ran)) {
    case CallClass::kCorrect: ++c.correct; break;
    case CallClass::kSilentLoss: ++c.silent_loss; break;
    case CallClass::kSilentDuplicate: ++c.silent_duplicates; break;
    case CallClass::kReportedDuplicate: break;
    case CallClass::kIndeterminate: ++c.indeterminate; break;
    case CallClass::kCleanFailure: ++c.clean_failure; break;
  }
}

void end_client(ClassCounts& c, const Ledger& ledger, uint32_t client_id, uint64_t accounted, uint64_t silent_before) {
  // A record naming one seq twice would account for more than ran.
  uint64_t total = ledger.total_executions(client_id);
  c.unissued_executions += total > accounted ? total - accounted : 0;
  c.levy_mismatches += ledger.mismatches(client_id);
  if (c.silent() > silent_before) c.clients_with_silent_errors = c.clients_with_silent_errors.value_or(0) + 1;
}

}  // namespace rpclab::harness
