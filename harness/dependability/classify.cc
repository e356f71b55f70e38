#include "harness/dependability/classify.h"

namespace rpclab::harness {
namespace {

void classify_call(const CallEntry& call, uint32_t ran, ClassCounts& c) {
  if (call.kind != ErrorKind::kOk) ++c.client_errors[std::string(error_kind_name(call.kind))];
  if (ran >= 2) {
    ++c.duplicate_calls;
    c.extra_executions += ran - 1;
  }
  switch (class_of(call.kind, ran)) {
    case CallClass::kCorrect: ++c.correct; break;
    case CallClass::kSilentLoss: ++c.silent_loss; break;
    case CallClass::kSilentDuplicate: ++c.silent_duplicates; break;
    case CallClass::kReportedDuplicate: break;
    case CallClass::kIndeterminate: ++c.indeterminate; break;
    case CallClass::kCleanFailure: ++c.clean_failure; break;
  }
}

}  // namespace

CallClass class_of(ErrorKind seen, uint32_t ran) {
  bool ok = seen == ErrorKind::kOk;
  if (ran >= 2) return ok ? CallClass::kSilentDuplicate : CallClass::kReportedDuplicate;
  if (ok) return ran == 1 ? CallClass::kCorrect : CallClass::kSilentLoss;
  return ran == 1 ? CallClass::kIndeterminate : CallClass::kCleanFailure;
}

ClassCounts classify(const std::vector<ClientCalls>& clients, const Ledger& ledger) {
  ClassCounts c;
  c.unrecorded = ledger.unrecorded();
  for (const ClientCalls& client : clients) {
    uint64_t accounted = 0, silent_before = c.silent();
    for (const CallEntry& call : client.record->calls) {
      uint32_t ran = ledger.count(client.client_id, call.seq);
      ++c.calls;
      accounted += ran;
      classify_call(call, ran, c);
    }
    // A record naming one seq twice would account for more than ran.
    uint64_t total = ledger.total_executions(client.client_id);
    c.unissued_executions += total > accounted ? total - accounted : 0;
    c.levy_mismatches += ledger.mismatches(client.client_id);
    if (c.silent() > silent_before) c.clients_with_silent_errors = c.clients_with_silent_errors.value_or(0) + 1;
  }
  return c;
}

}  // namespace rpclab::harness
