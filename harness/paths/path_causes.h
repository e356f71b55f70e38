// Why a call ran more than once on a path of replicas (docs/dependability.md,
// "How a cause is decided", the path's rules). Every execution of a
// (client, seq) in the replicas' journals, ordered by its arrival stamp
// (one clock: the replicas share this machine's), the first is the call's
// own; each later one gets one cause:
//   journal attempt > 0 (gRPC's grpc-previous-rpc-attempts):
//     on another replica, with a client that balances -> client-elsewhere
//     otherwise                                       -> library-retry
//   an application attempt left in the client's record  -> app-retry
//   on another replica, the proxy's log shows the call's request with two
//     or more upstream attempts (HAProxy logs the body: per call; nginx
//     logs attempts but not the call: as many as its retried requests,
//     first come first served)                          -> proxy-retry
//   on another replica, a datagram path, the same request id (XID) as an
//     earlier execution: the balancer sent a retransmission elsewhere
//                                                       -> balancer-elsewhere
//   on the same replica, a datagram transport that retransmits, the same
//     XID, no duplication on the link: its timer's resend -> retransmit-timeout
//   a stream transport whose library re-sends by itself (libcurl: a
//     request whose kept-alive connection closed before any byte of the
//     reply goes again on a new one), no proxy retry in the log that could
//     be this one, and: where the proxy's log names calls (HAProxy), fewer
//     logged requests of the call than its executions, on any replica
//     (HAProxy closes a client's kept connection with no answer and no log
//     line when the replica's side fails, "so that the client retries");
//     elsewhere, on the same replica over another connection than the
//     call's last execution there (Caddy's reload closes kept connections
//     too)                                                  -> library-retry
//   anything else                                       -> unexplained
// A pure function: the trial feeds it, the tests feed it by hand.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/paths/proxy_log.h"
#include "harness/record/causes.h"

namespace rpclab::harness {

struct ReplicaExecution {
  int replica = 1;
  uint32_t client_id = 0, seq = 0;
  int64_t realtime_ns = 0;   // its arrival stamp
  uint16_t attempt = 0;      // the library's attempt number, where the transport says
  uint32_t request_id = 0;   // XID or call id; 0: unknown
  uint64_t connection = 0;   // which connection it came on (path_servers.cc, connection_of); 0: unknown
};

struct PathCausesInput {
  std::vector<ReplicaExecution> executions;  // every replica's, any order
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> app_attempts;  // (client, seq) -> attempts; absent: 1
  ProxyLog proxy_log;            // empty without a proxy
  bool client_balances = false;  // the path's row
  bool datagram = false;         // the transport's carriage
  bool retransmits = false;      // its library resends by itself
  bool resends_on_new_connection = false;  // a stream transport whose library re-sends by itself (libcurl)
  bool link_duplicates = false;  // the cell's faults copy datagrams
};

struct PathCauses {
  CauseCounts counts;  // counts.total() == extra_executions
  uint64_t extra_executions = 0;
  uint64_t proxy_retries_unused = 0;  // retried requests in the proxy's log that ran nowhere twice
};

PathCauses attribute_path(const PathCausesInput& in);

}  // namespace rpclab::harness
