#include "harness/paths/path_causes.h"

#include <algorithm>
#include <set>

namespace rpclab::harness {

PathCauses attribute_path(const PathCausesInput& in) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<ReplicaExecution>> calls;
  for (const ReplicaExecution& e : in.executions) calls[{e.client_id, e.seq}].push_back(e);

  // The proxy's retried requests: by call where its log names the call,
  // else a pool handed out in the calls' order.
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> retried_by_call, logged_by_call;
  uint64_t retried_pool = 0;
  bool log_names_calls = false;  // HAProxy's: it logs each request's body
  for (const ProxyRequest& r : in.proxy_log.requests) {
    if (r.call) ++logged_by_call[*r.call], log_names_calls = true;
    if (r.attempts < 2) continue;
    if (r.call) retried_by_call[*r.call] += static_cast<uint64_t>(r.attempts - 1);
    else retried_pool += static_cast<uint64_t>(r.attempts - 1);
  }

  PathCauses out;
  for (auto& [call, runs] : calls) {
    std::stable_sort(runs.begin(), runs.end(),
                     [](const ReplicaExecution& a, const ReplicaExecution& b) { return a.realtime_ns < b.realtime_ns; });
    auto app = in.app_attempts.find(call);
    uint32_t app_left = app == in.app_attempts.end() ? 0 : app->second - 1;
    std::set<int> ran_on = {runs.front().replica};
    std::map<int, uint64_t> last_connection = {{runs.front().replica, runs.front().connection}};
    std::set<uint32_t> ids = {runs.front().request_id};
    for (size_t i = 1; i < runs.size(); ++i) {
      const ReplicaExecution& e = runs[i];
      bool elsewhere = !ran_on.count(e.replica);
      bool same_id = e.request_id != 0 && ids.count(e.request_id);
      Cause c = Cause::kUnexplained;
      if (e.attempt > 0) {
        c = elsewhere && in.client_balances ? Cause::kClientElsewhere : Cause::kLibraryRetry;
      } else if (app_left > 0 && !same_id) {
        --app_left;
        c = Cause::kAppRetry;
      } else if (elsewhere && retried_by_call[call] > 0) {
        --retried_by_call[call];
        c = Cause::kProxyRetry;
      } else if (elsewhere && retried_pool > 0) {
        --retried_pool;
        c = Cause::kProxyRetry;
      } else if (elsewhere && in.datagram && same_id) {
        c = Cause::kBalancerElsewhere;
      } else if (!elsewhere && in.datagram && in.retransmits && same_id && !in.link_duplicates) {
        c = Cause::kRetransmitTimeout;
      } else if (!in.datagram && in.resends_on_new_connection && retried_by_call[call] == 0 && retried_pool == 0 &&
                 (log_names_calls ? logged_by_call[call] < runs.size()
                                  : !elsewhere && e.connection != 0 && last_connection[e.replica] != 0 &&
                                        e.connection != last_connection[e.replica])) {
        // The client's library sent it again after its connection closed
        // unanswered: the proxy's log, where it names calls, lacks a request
        // of it (HAProxy logs no request it closed "so that the client
        // retries"); elsewhere, the replica saw it on a new connection.
        c = Cause::kLibraryRetry;
      }
      last_connection[e.replica] = e.connection;
      ++out.counts[c];
      ++out.extra_executions;
      ran_on.insert(e.replica);
      ids.insert(e.request_id);
    }
  }
  out.proxy_retries_unused = retried_pool;
  for (const auto& [call, n] : retried_by_call) out.proxy_retries_unused += n;
  return out;
}

}  // namespace rpclab::harness
