// The causes of extra executions across replicas (path_causes.h), one
// test per rule of the header's table, on executions built by hand: each
// test sets up the one fact its rule reads and checks that the rule, and
// no other, took the execution; where a rule has a condition (another
// replica, a client that balances, no copy on the link), the same input
// without it is checked to go elsewhere.
#include "harness/paths/path_causes.h"

#include <gtest/gtest.h>

#include <optional>

namespace rpclab::harness {
namespace {

using Call = std::pair<uint32_t, uint32_t>;

ReplicaExecution ran(int replica, int64_t at_ns, uint32_t request_id = 0, uint16_t attempt = 0, uint32_t client = 1,
                     uint32_t seq = 5) {
  ReplicaExecution e;
  e.replica = replica;
  e.client_id = client;
  e.seq = seq;
  e.realtime_ns = at_ns;
  e.attempt = attempt;
  e.request_id = request_id;
  return e;
}

ProxyRequest proxied(int attempts, std::optional<Call> call) {
  ProxyRequest r;
  r.attempts = attempts;
  r.call = call;
  r.upstream = "r2";
  r.status = "200";
  return r;
}

// The attribution, with the invariant every caller relies on checked.
PathCauses attribute(const PathCausesInput& in) {
  PathCauses out = attribute_path(in);
  EXPECT_EQ(out.counts.total(), out.extra_executions);
  return out;
}

// The one cause the single extra execution got, or a failure naming how
// many extra executions there were.
Cause only_cause(const PathCausesInput& in) {
  PathCauses out = attribute(in);
  EXPECT_EQ(out.extra_executions, 1u);
  for (const CauseRow& row : cause_rows())
    if (out.counts[row.cause] == 1) return row.cause;
  ADD_FAILURE() << "no cause took the extra execution";
  return Cause::kNetworkCopy;  // a cause no path rule gives
}

TEST(PathCauses, OneExecutionPerCallHasNoExtra) {
  PathCausesInput in;
  in.executions = {ran(1, 100, 0, 0, 1, 0), ran(2, 200, 0, 0, 1, 1), ran(1, 300, 0, 0, 2, 0)};
  PathCauses out = attribute(in);
  EXPECT_EQ(out.extra_executions, 0u);
  EXPECT_EQ(out.counts.total(), 0u);
}

TEST(PathCauses, LibraryAttemptIsLibraryRetry) {
  PathCausesInput in;
  in.executions = {ran(1, 100), ran(1, 200, 0, /*attempt=*/1)};
  EXPECT_EQ(only_cause(in), Cause::kLibraryRetry);
  // On another replica too, when nothing in the client balances: a proxy
  // carried the library's new attempt there.
  in.executions = {ran(1, 100), ran(2, 200, 0, 1)};
  EXPECT_EQ(only_cause(in), Cause::kLibraryRetry);
}

TEST(PathCauses, LibraryAttemptElsewhereWithABalancingClientIsClientElsewhere) {
  PathCausesInput in;
  in.client_balances = true;
  in.executions = {ran(1, 100), ran(2, 200, 0, 1)};
  EXPECT_EQ(only_cause(in), Cause::kClientElsewhere);
  // The same attempt on the replica it first ran on is the library's, not the balancing's.
  in.executions = {ran(1, 100), ran(1, 200, 0, 1)};
  EXPECT_EQ(only_cause(in), Cause::kLibraryRetry);
}

TEST(PathCauses, TheFirstByArrivalIsTheCallsOwn) {
  // Given out of order: replica 2's run came first, so replica 1's later
  // attempt is the one elsewhere. Taken in the given order it would be an
  // attempt-0 repeat with nothing to explain it.
  PathCausesInput in;
  in.client_balances = true;
  in.executions = {ran(1, 900, 0, 1), ran(2, 100, 0, 0)};
  EXPECT_EQ(only_cause(in), Cause::kClientElsewhere);
}

TEST(PathCauses, ARecordedApplicationAttemptIsAppRetry) {
  PathCausesInput in;
  in.app_attempts[{1, 5}] = 2;
  in.executions = {ran(1, 100, 0x100), ran(2, 200, 0x200)};
  EXPECT_EQ(only_cause(in), Cause::kAppRetry);
  // Only as many as the record holds: a third run is not one.
  in.executions.push_back(ran(1, 300, 0x300));
  PathCauses out = attribute(in);
  EXPECT_EQ(out.counts[Cause::kAppRetry], 1u);
  EXPECT_EQ(out.counts[Cause::kUnexplained], 1u);
  // The attempts of another call are not this one's.
  in.app_attempts = {{{1, 6}, 3}};
  in.executions = {ran(1, 100, 0x100), ran(1, 200, 0x200)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
}

TEST(PathCauses, TheSameRequestIdIsNoApplicationAttempt) {
  // An application attempt is a new request; one with the first's XID is
  // that request again (here the UDP client's own resend).
  PathCausesInput in;
  in.datagram = in.retransmits = true;
  in.app_attempts[{1, 5}] = 2;
  in.executions = {ran(1, 100, 0x100), ran(1, 200, 0x100)};
  EXPECT_EQ(only_cause(in), Cause::kRetransmitTimeout);
}

TEST(PathCauses, ProxyLogNamingTheCallIsProxyRetry) {
  // HAProxy logs the body: its retried request is this call's.
  PathCausesInput in;
  in.proxy_log.requests = {proxied(1, Call{1, 4}), proxied(2, Call{1, 5})};
  in.executions = {ran(1, 100), ran(2, 200)};
  PathCauses out = attribute(in);
  EXPECT_EQ(out.counts[Cause::kProxyRetry], 1u);
  EXPECT_EQ(out.extra_executions, 1u);
  EXPECT_EQ(out.proxy_retries_unused, 0u);
}

TEST(PathCauses, ProxyRetryOfAnotherCallDoesNotExplainThisOne) {
  PathCausesInput in;
  in.proxy_log.requests = {proxied(2, Call{1, 4})};
  in.executions = {ran(1, 100), ran(2, 200)};  // call (1, 5) ran twice
  PathCauses out = attribute(in);
  EXPECT_EQ(out.counts[Cause::kUnexplained], 1u);
  EXPECT_EQ(out.counts[Cause::kProxyRetry], 0u);
  EXPECT_EQ(out.proxy_retries_unused, 1u);  // (1, 4)'s retry ran nowhere twice
}

TEST(PathCauses, NginxRetriesWithoutTheCallAreHandedOutInOrder) {
  // nginx logs "A, B" but no body: its one retried request explains one
  // repeat elsewhere, the first that needs it; the second is unexplained.
  PathCausesInput in;
  in.proxy_log.requests = {proxied(2, std::nullopt), proxied(1, std::nullopt)};
  in.executions = {ran(1, 100, 0, 0, 1, 5), ran(2, 200, 0, 0, 1, 5), ran(1, 300, 0, 0, 1, 6), ran(2, 400, 0, 0, 1, 6)};
  PathCauses out = attribute(in);
  EXPECT_EQ(out.extra_executions, 2u);
  EXPECT_EQ(out.counts[Cause::kProxyRetry], 1u);
  EXPECT_EQ(out.counts[Cause::kUnexplained], 1u);
  EXPECT_EQ(out.proxy_retries_unused, 0u);
}

TEST(PathCauses, ProxyRetryIsOnlyEverElsewhere) {
  // A repeat on the same replica did not come from the proxy's retry to
  // another one; the retry stays unused.
  PathCausesInput in;
  in.proxy_log.requests = {proxied(2, Call{1, 5})};
  in.executions = {ran(1, 100), ran(1, 200)};
  PathCauses out = attribute(in);
  EXPECT_EQ(out.counts[Cause::kUnexplained], 1u);
  EXPECT_EQ(out.proxy_retries_unused, 1u);
}

TEST(PathCauses, ThreeAttemptsExplainTwoRepeats) {
  PathCausesInput in;
  in.proxy_log.requests = {proxied(3, Call{1, 5})};
  in.executions = {ran(1, 100), ran(2, 200), ran(3, 300)};
  PathCauses out = attribute(in);
  EXPECT_EQ(out.counts[Cause::kProxyRetry], 2u);
  EXPECT_EQ(out.proxy_retries_unused, 0u);
}

TEST(PathCauses, RetriesThatRanNowhereTwiceAreUnused) {
  PathCausesInput in;
  in.proxy_log.requests = {proxied(2, Call{1, 5}), proxied(3, std::nullopt), proxied(1, std::nullopt)};
  in.executions = {ran(1, 100)};  // every call ran once
  PathCauses out = attribute(in);
  EXPECT_EQ(out.extra_executions, 0u);
  EXPECT_EQ(out.proxy_retries_unused, 1u + 2u);
}

TEST(PathCauses, SameXidOnAnotherReplicaOfADatagramPathIsBalancerElsewhere) {
  PathCausesInput in;
  in.datagram = true;
  in.retransmits = true;
  in.executions = {ran(1, 100, 0xA1), ran(2, 200, 0xA1)};
  EXPECT_EQ(only_cause(in), Cause::kBalancerElsewhere);
  // A new XID elsewhere is no resend of the same request.
  in.executions = {ran(1, 100, 0xA1), ran(2, 200, 0xA2)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  // Nor is an unknown id (0), which every execution of a stream transport has.
  in.executions = {ran(1, 100, 0), ran(2, 200, 0)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  // Nor a stream path, where a balancer cannot send one request twice.
  in.datagram = false;
  in.executions = {ran(1, 100, 0xA1), ran(2, 200, 0xA1)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
}

TEST(PathCauses, SameXidOnTheSameReplicaIsRetransmitTimeout) {
  PathCausesInput in;
  in.datagram = true;
  in.retransmits = true;
  in.executions = {ran(2, 100, 0xB1), ran(2, 200, 0xB1)};
  EXPECT_EQ(only_cause(in), Cause::kRetransmitTimeout);
}

TEST(PathCauses, RetransmitTimeoutNeedsItsEveryCondition) {
  PathCausesInput in;
  in.datagram = true;
  in.retransmits = true;
  in.executions = {ran(2, 100, 0xB1), ran(2, 200, 0xB1)};
  // The link copies datagrams: the copy may be what ran twice.
  in.link_duplicates = true;
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  in.link_duplicates = false;
  // A library that never resends (raw-udp) did not resend it.
  in.retransmits = false;
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  in.retransmits = true;
  // Another XID is another request.
  in.executions = {ran(2, 100, 0xB1), ran(2, 200, 0xB2)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
}

// One execution on replica `replica`'s connection `connection` (of its
// first server start).
ReplicaExecution ran_on_connection(int replica, int64_t at_ns, uint32_t connection) {
  ReplicaExecution e = ran(replica, at_ns);
  e.connection = uint64_t{1} << 32 | connection;
  return e;
}

TEST(PathCauses, AStreamLibrarysResendOnANewConnectionIsLibraryRetry) {
  // libcurl under jsonrpc: HAProxy closed the client's kept connection
  // when replica 1's side was reset after the call ran, and curl sent the
  // request again; it reached replica 1 on a new proxy connection.
  PathCausesInput in;
  in.resends_on_new_connection = true;
  in.executions = {ran_on_connection(1, 100, 16), ran_on_connection(1, 200, 17)};
  EXPECT_EQ(only_cause(in), Cause::kLibraryRetry);
}

TEST(PathCauses, AStreamLibrarysResendNeedsItsEveryCondition) {
  PathCausesInput in;
  in.resends_on_new_connection = true;
  // The same connection: no resend of curl's, which only goes on a new one.
  in.executions = {ran_on_connection(1, 100, 16), ran_on_connection(1, 200, 16)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  // A connection the server could not tell.
  in.executions = {ran_on_connection(1, 100, 16), ran(1, 200)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  // A library that never re-sends (clnt_vc).
  in.executions = {ran_on_connection(1, 100, 16), ran_on_connection(1, 200, 17)};
  in.resends_on_new_connection = false;
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  in.resends_on_new_connection = true;
  // Another replica: the client's library does not choose the replica.
  in.executions = {ran_on_connection(1, 100, 16), ran_on_connection(2, 200, 3)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  // The same number after a restart is another connection.
  ReplicaExecution after_restart = ran_on_connection(1, 200, 16);
  after_restart.connection = uint64_t{2} << 32 | 16;
  in.executions = {ran_on_connection(1, 100, 16), after_restart};
  EXPECT_EQ(only_cause(in), Cause::kLibraryRetry);
  // A proxy retried this call, or requests it cannot name: it may have
  // sent it back to the same replica itself.
  in.executions = {ran_on_connection(1, 100, 16), ran_on_connection(1, 200, 17)};
  in.proxy_log.requests = {proxied(2, Call{1, 5})};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  in.proxy_log.requests = {proxied(2, std::nullopt)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  in.proxy_log.requests = {proxied(2, Call{1, 6})};  // another call's retry says nothing of this one
  EXPECT_EQ(only_cause(in), Cause::kLibraryRetry);
  in.proxy_log.requests.clear();
  // A datagram path has no connection to change.
  in.datagram = true;
  in.executions = {ran_on_connection(1, 100, 16), ran_on_connection(1, 200, 17)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
}

TEST(PathCauses, ACallHaproxyLoggedFewerTimesThanItRanWasSentAgainByTheClientsLibrary) {
  // xmlrpc through HAProxy, replica 1 reset after it ran the call: HAProxy
  // closed the client's connection and logged nothing; curl's resend is
  // the one line, and went to replica 2 (run 20261207-220856).
  PathCausesInput in;
  in.resends_on_new_connection = true;
  in.executions = {ran_on_connection(1, 100, 16), ran_on_connection(2, 200, 3)};
  in.proxy_log.requests = {proxied(1, Call{1, 5}), proxied(1, Call{1, 6})};
  EXPECT_EQ(only_cause(in), Cause::kLibraryRetry);
  // On the same replica, the same.
  in.executions = {ran_on_connection(1, 100, 16), ran_on_connection(1, 200, 17)};
  EXPECT_EQ(only_cause(in), Cause::kLibraryRetry);
  // Both requests logged: no request closed unanswered, nothing to go on.
  in.proxy_log.requests = {proxied(1, Call{1, 5}), proxied(1, Call{1, 5})};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  in.executions = {ran_on_connection(1, 100, 16), ran_on_connection(2, 200, 3)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
  // A library that never re-sends.
  in.proxy_log.requests = {proxied(1, Call{1, 5})};
  in.resends_on_new_connection = false;
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
}

TEST(PathCauses, NothingToGoOnIsUnexplained) {
  PathCausesInput in;
  in.executions = {ran(1, 100), ran(1, 200)};
  EXPECT_EQ(only_cause(in), Cause::kUnexplained);
}

TEST(PathCauses, EveryExtraExecutionGetsOneCause) {
  // A trial's mix, several calls and clients: the counts add up to the
  // extra executions, each where its rule puts it.
  PathCausesInput in;
  in.datagram = true;
  in.retransmits = true;
  in.app_attempts[{2, 1}] = 2;
  in.proxy_log.requests = {proxied(2, Call{3, 1})};
  in.executions = {
      ran(1, 10, 0x10, 0, 1, 1), ran(1, 20, 0x10, 0, 1, 1),                             // retransmit-timeout
      ran(1, 30, 0x20, 0, 2, 1), ran(2, 40, 0x21, 0, 2, 1),                             // app-retry
      ran(2, 50, 0x30, 0, 3, 1), ran(1, 60, 0x31, 0, 3, 1),                             // proxy-retry
      ran(1, 70, 0x40, 0, 4, 1), ran(2, 80, 0x40, 0, 4, 1), ran(2, 90, 0x40, 1, 4, 1),  // balancer, library
      ran(2, 95, 0x50, 0, 5, 1), ran(2, 99, 0x51, 0, 5, 1),                             // unexplained
      ran(1, 5, 0x60, 0, 6, 1),                                                          // once
  };
  PathCauses out = attribute(in);
  EXPECT_EQ(out.extra_executions, 6u);
  EXPECT_EQ(out.counts[Cause::kRetransmitTimeout], 1u);
  EXPECT_EQ(out.counts[Cause::kAppRetry], 1u);
  EXPECT_EQ(out.counts[Cause::kProxyRetry], 1u);
  EXPECT_EQ(out.counts[Cause::kBalancerElsewhere], 1u);
  EXPECT_EQ(out.counts[Cause::kLibraryRetry], 1u);
  EXPECT_EQ(out.counts[Cause::kUnexplained], 1u);
  EXPECT_EQ(out.proxy_retries_unused, 0u);
}

}  // namespace
}  // namespace rpclab::harness
