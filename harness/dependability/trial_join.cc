#include "harness/dependability/trial_join.h"

#include <algorithm>
#include <limits>

#include "client/call_record_header.h"

namespace rpclab::harness {
namespace {

int64_t start_ns(const CallRecord& r) { return header_of(r).start_realtime_ns; }

int64_t earliest_start_ns(const std::vector<ClientCalls>& clients) {
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const ClientCalls& c : clients) origin = std::min(origin, start_ns(*c.record));
  return clients.empty() ? 0 : origin;
}

ClientTrialCounts join_client(const ClientCalls& client, const Ledger& ledger, int64_t origin_ns,
                              ClassCounts& classes, std::vector<ErrorCall>& errors) {
  const CallRecord& r = *client.record;
  uint64_t accounted = 0, silent_before = classes.silent();
  ClientTrialCounts c;
  c.client_id = client.client_id;
  double record_start_ns = static_cast<double>(start_ns(r) - origin_ns);
  for (size_t i = 0; i < r.calls.size(); ++i) {
    const CallEntry& call = r.calls[i];
    // Each call's own start (version 1 records: estimated when read).
    double end_ns = record_start_ns + static_cast<double>(call.start_ns) + static_cast<double>(call.latency_ns);
    uint32_t ran = ledger.count(client.client_id, call.seq);
    accounted += ran;
    add_call(classes, call.kind, ran);
    CallClass cls = class_of(call.kind, ran);
    ++c.calls;
    bool silent = is_silent(cls);
    if (ran >= 2) {
      ++c.duplicate_calls;
      c.extra_executions += ran - 1;
    }
    if (silent || ran >= 2) {
      double end_s = end_ns / 1e9;
      errors.push_back({client.client_id, i, end_s, silent, ran >= 2 ? ran - 1 : 0});
      if (silent && !c.first_silent_s) c.first_silent_s = end_s;
      if (ran >= 2 && !c.first_duplicate_s) c.first_duplicate_s = end_s;
    }
    c.silent += silent ? 1 : 0;
  }
  end_client(classes, ledger, client.client_id, accounted, silent_before);
  return c;
}

}  // namespace

TrialJoin join_trial(uint32_t trial, const std::vector<ClientCalls>& clients, const Ledger& ledger) {
  TrialJoin join;
  join.counts.trial = trial;
  join.classes.unrecorded = ledger.unrecorded();
  int64_t origin = earliest_start_ns(clients);
  for (const ClientCalls& client : clients)
    join.counts.clients.push_back(join_client(client, ledger, origin, join.classes, join.errors));
  return join;
}

ClassCounts classify(const std::vector<ClientCalls>& clients, const Ledger& ledger) {
  return join_trial(0, clients, ledger).classes;
}

}  // namespace rpclab::harness
