#include "harness/dependability/classify.h"

namespace rpclab::harness {
CallClass class_of(ErrorKind seen, uint32_t ran) {
  bool ok = seen == ErrorKind::kOk;
  if (ran >= 2) return ok ? CallClass::kSilentDuplicate : CallClass::kReportedDuplicate;
  if (ok) return ran == 1 ? CallClass::kCorrect : CallClass::kSilentLoss;
  return ran == 1 ? CallClass::kIndeterminate : CallClass::kCleanFailure;
}

void ClassCounts::add_call(ErrorKind seen, uint32_t ran) {
  ++calls;
  if (seen != ErrorKind::kOk) ++client_errors[std::string(error_kind_name(seen))];
  if (ran >= 2) {
    ++duplicate_calls;
    extra_executions += ran - 1;
  }
  switch (class_of(seen, ran)) {
    case CallClass::kCorrect: ++correct; break;
    case CallClass::kSilentLoss: ++silent_loss; break;
    case CallClass::kSilentDuplicate: ++silent_duplicates; break;
    case CallClass::kReportedDuplicate: break;
    case CallClass::kIndeterminate: ++indeterminate; break;
    case CallClass::kCleanFailure: ++clean_failure; break;
  }
}

void ClassCounts::end_client(const Ledger& ledger, uint32_t client_id, uint64_t accounted, uint64_t silent_before) {
  // A record naming one seq twice would account for more than ran.
  uint64_t total = ledger.total_executions(client_id);
  unissued_executions += total > accounted ? total - accounted : 0;
  levy_mismatches += ledger.mismatches(client_id);
  if (silent() > silent_before) ++clients_with_silent_errors;
}

nlohmann::json ClassCounts::to_json() const {
  return {{"correct", correct},
          {"silent_loss", silent_loss},
          {"duplicate_calls", duplicate_calls},
          {"extra_executions", extra_executions},
          {"silent_duplicates", silent_duplicates},
          {"indeterminate", indeterminate},
          {"clean_failure", clean_failure},
          {"unissued_executions", unissued_executions},
          {"unrecorded_executions", unrecorded},
          {"clients_with_silent_errors", clients_with_silent_errors},
          {"client_errors", client_errors}};
}

ClassCounts& ClassCounts::operator+=(const ClassCounts& o) {
  calls += o.calls;
  correct += o.correct;
  silent_loss += o.silent_loss;
  duplicate_calls += o.duplicate_calls;
  extra_executions += o.extra_executions;
  silent_duplicates += o.silent_duplicates;
  indeterminate += o.indeterminate;
  clean_failure += o.clean_failure;
  unissued_executions += o.unissued_executions;
  levy_mismatches += o.levy_mismatches;
  unrecorded += o.unrecorded;
  clients_with_silent_errors += o.clients_with_silent_errors;
  for (const auto& [kind, n] : o.client_errors) client_errors[kind] += n;
  return *this;
}

ClassCounts ClassCounts::from_record(const nlohmann::json& r) {
  const nlohmann::json& j = r.at("classes");
  auto n = [&](const char* key) { return j.value(key, uint64_t{0}); };
  ClassCounts c;
  c.calls = r.value("calls", uint64_t{0});
  c.levy_mismatches = r.value("levy_mismatches", uint64_t{0});
  c.correct = n("correct");
  c.silent_loss = n("silent_loss");
  c.duplicate_calls = n("duplicate_calls");
  c.extra_executions = n("extra_executions");
  c.silent_duplicates = n("silent_duplicates");
  c.indeterminate = n("indeterminate");
  c.clean_failure = n("clean_failure");
  c.unissued_executions = n("unissued_executions");
  c.unrecorded = n("unrecorded_executions");
  c.clients_with_silent_errors = n("clients_with_silent_errors");
  if (j.contains("client_errors")) c.client_errors = j.at("client_errors").get<std::map<std::string, uint64_t>>();
  return c;
}

}  // namespace rpclab::harness
