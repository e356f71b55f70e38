// The attribution of extra executions to causes (harness/causes/attribution.h),
// on hand-made journals, client records and wires: one test per cause, the
// ways a cause is refused (unexplained), and the sum over causes.
#include "harness/causes/attribution.h"

#include <gtest/gtest.h>

#include "server/journal_format.h"
#include "harness/causes/causes_report.h"
#include "harness/causes/wire_record.h"

namespace rpclab::harness {
namespace {

constexpr uint8_t kSunRpc = journal::kKnowsRequestId | journal::kKnowsPeer;
constexpr uint16_t kPort = 40001;

Execution run(uint32_t seq, uint32_t xid, uint16_t port = kPort, uint32_t client = 1) {
  return {client, seq, kSunRpc, xid, port, 0};
}
WirePacket sent(uint32_t xid, uint16_t port = kPort) { return {WireKind::kSent, port, xid, 0}; }
WirePacket copy(uint32_t xid, uint16_t port = kPort) { return {WireKind::kCopy, port, xid, 0}; }
WirePacket reply(uint32_t xid, uint16_t port = kPort) { return {WireKind::kReply, port, xid, 0}; }

CauseCounts counts_of(const AttributionInput& in) {
  Attribution a = attribute(in);
  EXPECT_EQ(a.counts.total(), a.extra_executions);
  EXPECT_EQ(a.causes.size(), a.extra_executions);
  return a.counts;
}

TEST(Attribution, FirstExecutionsNeedNoCause) {
  AttributionInput in;
  in.executions = {run(0, 10), run(1, 11), run(2, 12)};
  Attribution a = attribute(in);
  EXPECT_EQ(a.extra_executions, 0u);
  EXPECT_TRUE(a.causes.empty());
}

TEST(Attribution, GrpcAttemptIsLibraryRetry) {
  AttributionInput in;
  in.executions = {{1, 0, journal::kKnowsAttempt, 0, 0, 0}, {1, 0, journal::kKnowsAttempt, 0, 0, 1}};
  EXPECT_EQ(counts_of(in)[Cause::kLibraryRetry], 1u);
}

TEST(Attribution, NewXidTheClientRecordedIsAppRetry) {
  AttributionInput in;
  in.executions = {run(5, 100), run(5, 200)};
  in.app_attempts[{1, 5}] = 2;
  EXPECT_EQ(counts_of(in)[Cause::kAppRetry], 1u);
}

TEST(Attribution, NewXidWithoutAnAppAttemptIsUnexplained) {
  AttributionInput in;
  in.executions = {run(5, 100), run(5, 200), run(5, 300)};
  in.app_attempts[{1, 5}] = 2;  // one retry recorded, two new requests ran
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kAppRetry], 1u);
  EXPECT_EQ(c[Cause::kUnexplained], 1u);
}

TEST(Attribution, NoIdentityStillTellsAppRetriesFromTheRecord) {
  AttributionInput in;
  in.executions = {{1, 3, 0, 0, 0, 0}, {1, 3, 0, 0, 0, 0}};
  in.app_attempts[{1, 3}] = 2;
  EXPECT_EQ(counts_of(in)[Cause::kAppRetry], 1u);
}

TEST(Attribution, TheDuplicationRulesCopyIsNetworkCopy) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100)};
  in.wire = Wire{{sent(100), copy(100), reply(100), reply(100)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kNetworkCopy], 1u);
}

TEST(Attribution, RanMoreOftenThanOfferedIsUnexplained) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100)};
  in.wire = Wire{{sent(100), reply(100), reply(100)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 1u);
}

// Three datagrams beyond the first were offered (a copy, a resend after a
// stale reply, a retransmission), two ran: which one was lost is unknown,
// so none of the causes is certain.
TEST(Attribution, WhenSomeOfferedDatagramsWereLostOnlyTheCertainCausesCount) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100), run(0, 100)};
  in.wire = Wire{{sent(100), copy(100), reply(99), sent(100), sent(100), reply(100)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 2u);
  // Two copies and a retransmission offered, two ran: at least one copy did.
  in.wire = Wire{{sent(100), copy(100), copy(100), sent(100), reply(100)}, 0};
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kNetworkCopy], 1u);
  EXPECT_EQ(c[Cause::kUnexplained], 1u);
}

TEST(Attribution, ResendRightAfterAnotherXidsReplyIsStaleReplyResend) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100), run(1, 101), run(1, 101)};
  // Call 0 was copied on the way; its second reply arrives during call 1,
  // which clnt_dg answers by sending call 1 again.
  in.wire = Wire{{sent(100), copy(100), reply(100), sent(101), reply(100), sent(101), reply(101), reply(101)}, 0};
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kNetworkCopy], 1u);
  EXPECT_EQ(c[Cause::kStaleReplyResend], 1u);
  EXPECT_EQ(c[Cause::kUnexplained], 0u);
}

// The kernel logs a reply as it arrives; the client may read a stale one
// first and resend before it reads its own.
TEST(Attribution, AStaleReplyAnywhereBetweenTheSendsCounts) {
  AttributionInput in;
  in.executions = {run(1, 101), run(1, 101)};
  in.wire = Wire{{sent(101), reply(100), reply(101), sent(101)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kStaleReplyResend], 1u);
}

TEST(Attribution, ResendWithNoReplyIsRetransmitTimeout) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100)};
  in.wire = Wire{{sent(100), sent(100), reply(100)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kRetransmitTimeout], 1u);
}

TEST(Attribution, AnotherSocketsReplyDoesNotMakeAResend) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100)};
  in.wire = Wire{{sent(100), reply(7, kPort + 1), sent(100), reply(100)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kRetransmitTimeout], 1u);
}

// Stale replies wait in the socket: each one the client reads makes one
// resend, even when it arrived before the previous resend left.
TEST(Attribution, EachQueuedStaleReplyMakesOneResend) {
  AttributionInput in;
  in.executions = {run(1, 101), run(1, 101), run(1, 101)};
  in.wire = Wire{{sent(101), reply(100), reply(100), sent(101), sent(101), reply(101)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kStaleReplyResend], 2u);
}

// With --drain the client throws away what arrived before its call, so a
// late reply to the call before it makes no resend.
TEST(Attribution, DrainedRepliesMakeNoResend) {
  AttributionInput in;
  in.executions = {run(0, 100), run(1, 101), run(1, 101)};
  in.wire = Wire{{sent(100), reply(100), reply(100), sent(101), sent(101), reply(101)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kStaleReplyResend], 1u);
  in.drains_stale_replies = true;
  EXPECT_EQ(counts_of(in)[Cause::kRetransmitTimeout], 1u);
}

Execution stamped(uint32_t seq, uint32_t xid, int64_t arrival_ns) {
  Execution e = run(seq, xid);
  e.known |= journal::kKnowsKernelArrival;
  e.arrival_ns = arrival_ns;
  return e;
}
WirePacket at(WirePacket p, int64_t ns) {
  p.realtime_ns = ns;
  return p;
}

// The first transmission was lost, a stale-reply resend and a timer's
// retransmission ran: by counts alone either could be the extra one; the
// server's kernel stamps say the retransmission (sent at 3000) was.
TEST(Attribution, KernelStampsTellWhichTransmissionRan) {
  AttributionInput in;
  in.executions = {stamped(0, 100, 2004), stamped(0, 100, 3003)};
  in.wire = Wire{{at(sent(100), 1000), at(reply(99), 1900), at(sent(100), 2000), at(sent(100), 3000),
                  at(reply(100), 3100)}, 0};
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kRetransmitTimeout], 1u);
  EXPECT_EQ(c[Cause::kUnexplained], 0u);
  // The same executions without stamps: one extra run, two candidates.
  in.executions = {run(0, 100), run(0, 100)};
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 1u);
}

// A transmission and its copy leave in one sendto: the second run of that
// transmission is the copy, whichever of the two was stamped first.
TEST(Attribution, ASecondRunOfOneTransmissionIsItsCopy) {
  AttributionInput in;
  in.executions = {stamped(0, 100, 1003), stamped(0, 100, 1004), stamped(0, 100, 5002)};
  in.wire = Wire{{at(sent(100), 1000), at(copy(100), 1001), at(sent(100), 5000), at(reply(100), 5100)}, 0};
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kNetworkCopy], 1u);
  EXPECT_EQ(c[Cause::kRetransmitTimeout], 1u);
  EXPECT_EQ(c[Cause::kUnexplained], 0u);
  // Run three times with one copy: the third run has no transmission to come from.
  in.executions = {stamped(0, 100, 1003), stamped(0, 100, 1004), stamped(0, 100, 1005)};
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 1u);
}

// The eBPF capture stamps dup's copy before its original (the rule sends
// it from inside the original's hook), and the server can stamp the copy's
// run before the original's stamp: that run still came from this
// retransmission, not from the transmission before it.
TEST(Attribution, ACopyStampedBeforeItsOriginalBelongsToIt) {
  AttributionInput in;
  in.executions = {stamped(0, 100, 1003), stamped(0, 100, 5001), stamped(0, 100, 5004)};
  in.wire = Wire{{at(sent(100), 1000), at(sent(100), 5002), at(copy(100), 5000), at(reply(100), 5100)}, 0};
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kRetransmitTimeout], 1u);
  EXPECT_EQ(c[Cause::kNetworkCopy], 1u);
  EXPECT_EQ(c[Cause::kUnexplained], 0u);
}

// A run stamped long after every transmission (a delayed link) is not
// matched by time: the repeats fall back to counts.
TEST(Attribution, StampsTooFarApartFallBackToCounts) {
  AttributionInput in;
  in.executions = {stamped(0, 100, 1003), stamped(0, 100, 90'000'000)};
  in.wire = Wire{{at(sent(100), 1000), at(sent(100), 2000), at(reply(100), 3000)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kRetransmitTimeout], 1u);
  in.wire->packets.insert(in.wire->packets.begin() + 1, at(copy(100), 1001));  // now two candidates, one ran
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 1u);
}

// The replay as clnt_dg_call runs, on a 20 ms interval: stamps in ms.
constexpr int64_t kMs = 1'000'000;
AttributionInput timed(int timeout_ms = 1000) {
  AttributionInput in;
  in.retransmit_ms = 20;
  in.timeout_ms = timeout_ms;
  return in;
}

TEST(Attribution, TheGiveUpBudgetIsTimeoutOverIntervalRoundedUp) {
  EXPECT_EQ(give_up_budget(1000, 20), 50u);   // the storms' 1 s / 20 ms
  EXPECT_EQ(give_up_budget(25000, 15000), 2u);  // the stub's 25 s, libtirpc's 15 s: one resend
  EXPECT_EQ(give_up_budget(40, 15000), 1u);   // no resend at all
  EXPECT_EQ(give_up_budget(1010, 20), 51u);
  EXPECT_EQ(give_up_budget(0, 20), 0u) << "unknown: no budget";
  EXPECT_EQ(give_up_budget(1000, 0), 0u);
}

// A budget of 3 (60 ms / 20 ms): call 101 reads two stale replies and
// resends twice, and its third event, the third stale reply, ends it
// without a send. Call 102 then has one stale reply to read, not two, and
// its later send is its timer's. Without the budget the third reply is
// left to call 102, and its timer resend counted as a stale one.
TEST(Attribution, AGivenUpCallReadsOneStaleReplyItDoesNotAnswer) {
  AttributionInput in = timed(60);
  in.executions = {run(0, 101), run(0, 101), run(0, 101), run(1, 102), run(1, 102), run(1, 102)};
  in.wire = Wire{{at(sent(101), 1), at(reply(100), 1 * kMs), at(sent(101), 1 * kMs + 10'000),
                  at(reply(100), 2 * kMs), at(sent(101), 2 * kMs + 10'000), at(reply(100), 3 * kMs),
                  at(sent(102), 4 * kMs), at(reply(100), 5 * kMs), at(sent(102), 5 * kMs + 10'000),
                  at(sent(102), 25 * kMs + 10'000), at(reply(102), 26 * kMs)}, 0};
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kStaleReplyResend], 3u);
  EXPECT_EQ(c[Cause::kRetransmitTimeout], 1u);
  in.timeout_ms = 0;  // no budget known: the third reply is left to call 102
  c = counts_of(in);
  EXPECT_EQ(c[Cause::kStaleReplyResend], 4u);
  EXPECT_EQ(c[Cause::kRetransmitTimeout], 0u);
}

// A call that gave up by its timer read nothing at its last event: a
// reply that came after its timer ran out waits for the next call.
TEST(Attribution, AGivenUpCallsTimerLeavesALaterReplyToTheNextCall) {
  AttributionInput in = timed(40);  // budget 2
  in.executions = {run(0, 101), run(0, 101), run(1, 102), run(1, 102)};
  in.wire = Wire{{at(sent(101), 1), at(sent(101), 20 * kMs), at(reply(101), 41 * kMs), at(sent(102), 42 * kMs),
                  at(sent(102), 42 * kMs + 10'000), at(reply(102), 43 * kMs)}, 0};
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kRetransmitTimeout], 1u);
  EXPECT_EQ(c[Cause::kStaleReplyResend], 1u) << "call 101's late reply makes call 102 send again";
}

// A call that did not give up read its own reply; the stale reply the
// wire lists before it stays in the socket for the next call (had the
// client read it first, it would have sent again).
TEST(Attribution, ACallLeavesTheRepliesItDidNotReadToTheNext) {
  AttributionInput in;
  in.executions = {run(0, 100), run(1, 101), run(1, 101)};
  in.wire = Wire{{sent(100), reply(99), reply(100), sent(101), sent(101), reply(101)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kStaleReplyResend], 1u);
}

// A resend 0.5 ms after the one before cannot be the 20 ms timer's: it
// read a reply to another XID, here one the wire lists just after it.
// Without a known interval, order alone calls it the timer's.
TEST(Attribution, AResendSoonerThanTheIntervalIsNotTheTimers) {
  AttributionInput in = timed();
  in.executions = {run(1, 101), run(1, 101), run(1, 101)};
  in.wire = Wire{{at(sent(101), 1), at(sent(101), kMs / 2), at(reply(100), kMs / 2 + 1000),
                  at(sent(101), kMs / 2 + 20 * kMs), at(reply(101), 21 * kMs)}, 0};
  Attribution a = attribute(in);
  EXPECT_EQ(a.counts[Cause::kStaleReplyResend], 1u);
  EXPECT_EQ(a.counts[Cause::kRetransmitTimeout], 1u) << "the reply listed late is the fast resend's, not the slow one's";
  in.retransmit_ms = 0;
  a = attribute(in);
  EXPECT_EQ(a.counts[Cause::kRetransmitTimeout], 1u);
  EXPECT_EQ(a.counts[Cause::kStaleReplyResend], 1u) << "the late reply is read before the third send";
  in.wire->packets.erase(in.wire->packets.begin() + 2);  // no reply to read at all
  EXPECT_EQ(counts_of(in)[Cause::kRetransmitTimeout], 2u);
}

// A fast resend with the call's own reply oldest in the socket: the wire
// listed it first, the client read the stale reply behind it first.
TEST(Attribution, AFastResendReadTheStaleReplyBehindItsOwn) {
  AttributionInput in = timed();
  in.executions = {run(1, 101), run(1, 101), run(2, 102), run(2, 102)};
  in.wire = Wire{{at(sent(101), 1), at(reply(101), kMs), at(reply(100), kMs + 500), at(sent(101), kMs + 10'000),
                  at(sent(102), 2 * kMs), at(sent(102), 22 * kMs), at(reply(102), 23 * kMs)}, 0};
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kStaleReplyResend], 1u);
  EXPECT_EQ(c[Cause::kRetransmitTimeout], 1u) << "call 101 read its own reply after the resend: nothing left for 102";
}

// clnt_dg sends a call's XID only while that call lasts: the same XID
// sent again after the next call began is no resend the replay knows.
TEST(Attribution, AnXidSentAgainAfterTheNextCallBeganIsUnexplained) {
  AttributionInput in;
  in.executions = {run(0, 100), run(1, 101), run(0, 100)};
  in.wire = Wire{{sent(100), reply(100), sent(101), sent(100), reply(101)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 1u);
}

// With --drain the client empties its socket, then sends: a reply that
// came in between is still read. The replay drains at the first send,
// and a resend right after it shows the drain missed the latest reply.
TEST(Attribution, TheDrainMissesWhatArrivedAfterIt) {
  AttributionInput in = timed();
  in.drains_stale_replies = true;
  in.executions = {run(0, 100), run(1, 101), run(1, 101), run(1, 101)};
  in.wire = Wire{{at(sent(100), 1), at(reply(100), 1 * kMs), at(reply(100), 5 * kMs - 2000),
                  at(sent(101), 5 * kMs), at(sent(101), 5 * kMs + 10'000), at(sent(101), 25 * kMs + 10'000),
                  at(reply(101), 26 * kMs)}, 0};
  CauseCounts c = counts_of(in);
  EXPECT_EQ(c[Cause::kStaleReplyResend], 1u);
  EXPECT_EQ(c[Cause::kRetransmitTimeout], 1u);
}

// The replay reads the wire in stamp order: a reply stamped before a
// resend that the file lists after it was there to be read.
TEST(Attribution, TheReplayFollowsStampsNotTheFile) {
  AttributionInput in = timed();
  in.executions = {run(1, 101), run(1, 101)};
  in.wire = Wire{{at(sent(101), 1), at(sent(101), 30 * kMs), at(reply(100), 30 * kMs - 1000),
                  at(reply(101), 31 * kMs)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kStaleReplyResend], 1u);
  in.wire->packets[2].realtime_ns = 30 * kMs + 1000;  // now it came after
  EXPECT_EQ(counts_of(in)[Cause::kRetransmitTimeout], 1u);
}

// With no port in the journal a run is keyed by its XID alone: the one
// socket that sent it decides; two sockets that sent it leave it unexplained.
TEST(Attribution, AnXidWithoutAPortIsTheOneSocketsThatSentIt) {
  AttributionInput in;
  Execution e{1, 0, journal::kKnowsRequestId, 100, 0, 0};
  in.executions = {e, e};
  in.wire = Wire{{sent(100), sent(100), reply(100), sent(7, kPort + 1)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kRetransmitTimeout], 1u);
  in.wire->packets.push_back(sent(100, kPort + 1));
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 1u);
}

// Each timed match says where the run came from: a timer resend left at
// least the interval after its XID's transmission before it.
TEST(Attribution, EachMatchedRunNamesItsTransmission) {
  AttributionInput in = timed();
  in.executions = {stamped(0, 100, 1003), stamped(0, 100, 20 * kMs + 1003)};
  in.wire = Wire{{at(sent(100), 1000), at(sent(100), 20 * kMs + 1000), at(reply(100), 21 * kMs)}, 0};
  Attribution a = attribute(in);
  ASSERT_EQ(a.origins.size(), 1u);
  EXPECT_EQ(a.causes[0], Cause::kRetransmitTimeout);
  EXPECT_EQ(a.origins[0].left_ns, 20 * kMs + 1000);
  EXPECT_EQ(a.origins[0].previous_ns, 1000);
  EXPECT_EQ(a.origins[0].client_port, kPort);
}

TEST(Attribution, RepeatsWithoutAWireAreUnexplained) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100)};
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 1u);
}

TEST(Attribution, AWireThatDroppedPacketsDecidesNothing) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100)};
  in.wire = Wire{{sent(100), reply(100)}, 3};
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 1u);
}

TEST(Attribution, AnXidTheWireNeverSawSentIsUnexplained) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100)};
  in.wire = Wire{{sent(99), reply(99)}, 0};
  EXPECT_EQ(counts_of(in)[Cause::kUnexplained], 1u);
}

TEST(Attribution, CausesAddUpOverClientsAndCalls) {
  AttributionInput in;
  in.executions = {run(0, 100), run(0, 100), run(0, 100),                         // client 1: copy, timeout
                   run(0, 500, kPort + 1, 2), run(0, 600, kPort + 1, 2),          // client 2: app retry
                   {3, 0, journal::kKnowsAttempt, 0, 0, 0}, {3, 0, journal::kKnowsAttempt, 0, 0, 2}};
  in.app_attempts[{2, 0}] = 2;
  in.wire = Wire{{sent(100), copy(100), sent(100), sent(500, kPort + 1), sent(600, kPort + 1)}, 0};
  Attribution a = attribute(in);
  EXPECT_EQ(a.extra_executions, 4u);
  EXPECT_EQ(a.counts.total(), 4u);
  EXPECT_EQ(a.counts[Cause::kRetransmitTimeout], 1u);
  EXPECT_EQ(a.counts[Cause::kNetworkCopy], 1u);
  EXPECT_EQ(a.counts[Cause::kAppRetry], 1u);
  EXPECT_EQ(a.counts[Cause::kLibraryRetry], 1u);
}

// Calls 3, 4, 5 of client 1 each ran twice: one cascade, started by the
// network's copy of call 3. Client 2's calls 4 and 5 are a second one,
// started by a retransmission. Call 9 ran twice alone: no cascade.
TEST(Attribution, CascadesAreRunsOfConsecutiveCallsThatRanTwice) {
  AttributionInput in;
  in.executions = {run(3, 103), run(3, 103), run(4, 104), run(4, 104), run(5, 105), run(5, 105),
                   run(9, 109), run(9, 109), run(4, 204, kPort + 1, 2), run(4, 204, kPort + 1, 2),
                   run(5, 205, kPort + 1, 2), run(5, 205, kPort + 1, 2)};
  in.wire = Wire{{sent(103), copy(103), reply(103), sent(104), reply(103), sent(104), reply(104), sent(105),
                  reply(104), sent(105), reply(105), sent(109), sent(109), reply(109), sent(204, kPort + 1),
                  sent(204, kPort + 1), reply(204, kPort + 1), sent(205, kPort + 1), reply(204, kPort + 1),
                  sent(205, kPort + 1)}, 0};
  Attribution a = attribute(in);
  EXPECT_EQ(a.counts[Cause::kUnexplained], 0u);
  EXPECT_EQ(a.cascades.count, 2u);
  EXPECT_EQ(a.cascades.longest, 3u);
  EXPECT_EQ(a.cascades.started_by[Cause::kNetworkCopy], 1u);
  EXPECT_EQ(a.cascades.started_by[Cause::kRetransmitTimeout], 1u);
  EXPECT_EQ(a.cascades.started_by.total(), a.cascades.count);
}

// A trial's cascades in its causes object, read back and added over trials
// as the cell record does: counts add up, the longest is the longest.
TEST(Attribution, CascadesRoundTripAndAddOverTrials) {
  Cascades one;
  one.count = 2;
  one.started_by[Cause::kNetworkCopy] = 2;
  one.longest = 5;
  CausesRecord causes;
  causes.cascades = one;
  nlohmann::json j = causes;
  EXPECT_EQ(j["cascades"], 2);
  EXPECT_EQ(j["cascade_starts"]["network_copy"], 2);
  EXPECT_EQ(j["longest_cascade"], 5);
  Cascades sum = *j.get<CausesRecord>().cascades;
  Cascades two;
  two.count = 1;
  two.started_by[Cause::kRetransmitTimeout] = 1;
  two.longest = 9;
  sum += two;
  EXPECT_EQ(sum.count, 3u);
  EXPECT_EQ(sum.started_by.total(), 3u);
  EXPECT_EQ(sum.longest, 9u);
  EXPECT_FALSE(nlohmann::json::object().get<CausesRecord>().cascades) << "records before cascades have none";
}

TEST(Attribution, CountsKeepTheirStableKeys) {
  CauseCounts c;
  c[Cause::kStaleReplyResend] = 7;
  nlohmann::json j = c;
  for (const char* key : {"network_copy", "retransmit_timeout", "stale_reply_resend", "library_retry", "app_retry",
                          "unexplained"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["stale_reply_resend"], 7);
  EXPECT_EQ(j.get<CauseCounts>()[Cause::kStaleReplyResend], 7u);
}

TEST(CausesTable, ShowsEachCellThatRanACallTwice) {
  CellRecord twice;
  twice.experiment = "dependability";
  twice.label = "udp dup";
  twice.dependability.classes = ClassCounts{};
  twice.dependability.classes->extra_executions = 12;
  CausesRecord causes;
  causes.counts[Cause::kNetworkCopy] = 5;
  causes.counts[Cause::kStaleReplyResend] = 7;
  causes.capture = "nflog";
  twice.dependability.causes = MaybeNull<CausesRecord>::of(causes);
  CellRecord once = twice;
  once.label = "clean";
  once.dependability.classes->extra_executions = 0;
  std::string text = causes_table({twice, once}).render();
  EXPECT_NE(text.find("stale"), std::string::npos) << text;
  EXPECT_NE(text.find("udp dup"), std::string::npos) << text;
  EXPECT_NE(text.find("nflog"), std::string::npos) << text;
  EXPECT_EQ(text.find("clean"), std::string::npos) << text;
  EXPECT_TRUE(causes_table({once}).empty());
}

TEST(WireRecord, RoundTrips) {
  Wire w{{sent(0xdeadbeef), reply(0x01020304, 9)}, 2};
  w.packets[0].realtime_ns = 1795667579366180000;
  Wire back = parse_wire(format_wire(w));
  ASSERT_EQ(back.packets.size(), 2u);
  EXPECT_EQ(back.drops, 2u);
  EXPECT_EQ(back.packets[0].xid, 0xdeadbeefu);
  EXPECT_EQ(back.packets[0].kind, WireKind::kSent);
  EXPECT_EQ(back.packets[0].realtime_ns, 1795667579366180000);
  EXPECT_EQ(back.packets[1].kind, WireKind::kReply);
  EXPECT_EQ(back.packets[1].client_port, 9);
}

TEST(WireRecord, RefusesDamage) {
  std::string bytes = format_wire(Wire{{sent(1)}, 0});
  EXPECT_THROW(parse_wire(bytes.substr(0, bytes.size() - 1)), WireError);
  EXPECT_THROW(parse_wire(bytes.substr(0, 10)), WireError);
  std::string bad = bytes;
  bad[0] = 'X';
  EXPECT_THROW(parse_wire(bad), WireError);
}

// An NFLOG record as the kernel hands it to libpcap: header, a prefix TLV,
// the device TLV, the payload TLV with an IPv4/UDP datagram whose payload
// leads with the XID. On egress (an output device) the kernel logs the
// Ethernet header too.
std::vector<unsigned char> nflog_udp(uint16_t sport, uint16_t dport, uint32_t xid, bool egress, uint32_t mark = 0,
                                     int64_t stamp_us = 0) {
  std::vector<unsigned char> ip(20 + 8 + 8, 0);
  ip[0] = 0x45;
  ip[9] = 17;
  ip[20] = sport >> 8, ip[21] = sport & 0xff, ip[22] = dport >> 8, ip[23] = dport & 0xff;
  for (int i = 0; i < 4; ++i) ip[28 + i] = static_cast<unsigned char>(xid >> (24 - 8 * i));
  if (egress) {
    std::vector<unsigned char> eth = {0x42, 1, 2, 3, 4, 5, 0x46, 1, 2, 3, 4, 6, 0x08, 0x00};
    ip.insert(ip.begin(), eth.begin(), eth.end());
  }
  std::vector<unsigned char> d = {5, 0, 0x10, 0x11};
  auto tlv = [&](uint16_t type, const std::vector<unsigned char>& v) {
    uint16_t len = static_cast<uint16_t>(4 + v.size());
    d.insert(d.end(), {static_cast<unsigned char>(len & 0xff), static_cast<unsigned char>(len >> 8),
                       static_cast<unsigned char>(type & 0xff), static_cast<unsigned char>(type >> 8)});
    d.insert(d.end(), v.begin(), v.end());
    while (d.size() % 4) d.push_back(0);
  };
  tlv(10, {'x', 0});             // NFULA_PREFIX, padded
  if (mark) tlv(2, {uint8_t(mark >> 24), uint8_t(mark >> 16), uint8_t(mark >> 8), uint8_t(mark)});  // NFULA_MARK
  if (stamp_us) {  // NFULA_TIMESTAMP: big-endian seconds, then microseconds
    std::vector<unsigned char> ts(16, 0);
    for (int i = 0; i < 8; ++i) {
      ts[i] = static_cast<unsigned char>((stamp_us / 1'000'000) >> (56 - 8 * i));
      ts[8 + i] = static_cast<unsigned char>((stamp_us % 1'000'000) >> (56 - 8 * i));
    }
    tlv(3, ts);
  }
  tlv(egress ? 5 : 4, {0, 0, 0, 2});  // NFULA_IFINDEX_OUTDEV / _INDEV
  tlv(9, ip);                    // NFULA_PAYLOAD
  return d;
}

TEST(WireRecord, ReadsTheXidOutOfAnNflogPacket) {
  auto req = nflog_udp(40001, 2049, 0x11223344, true);
  auto p = wire_packet_from_nflog(req.data(), req.size(), 2049, 5);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, WireKind::kSent);
  EXPECT_EQ(p->client_port, 40001);
  EXPECT_EQ(p->xid, 0x11223344u);
  auto dup = nflog_udp(40001, 2049, 0x11223344, true, 0x52504c42);
  p = wire_packet_from_nflog(dup.data(), dup.size(), 2049, 5);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, WireKind::kCopy);
  auto rep = nflog_udp(2049, 40001, 7, false);
  p = wire_packet_from_nflog(rep.data(), rep.size(), 2049, 5);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, WireKind::kReply);
  EXPECT_EQ(p->client_port, 40001);
  EXPECT_EQ(p->xid, 7u);
  auto other = nflog_udp(53, 40001, 7, false);
  EXPECT_FALSE(wire_packet_from_nflog(other.data(), other.size(), 2049, 5));
  EXPECT_FALSE(wire_packet_from_nflog(req.data(), 12, 2049, 5));
}

// The eBPF capture sees a copy before its original; the wire lists it after
// the transmission it copies, wherever other sockets' packets fall between.
TEST(WireRecord, ListsEachCopyAfterItsOriginal) {
  auto packet = [](WireKind kind, uint16_t port, uint32_t xid) {
    WirePacket p;
    p.kind = kind;
    p.client_port = port;
    p.xid = xid;
    return p;
  };
  std::vector<WirePacket> in = {packet(WireKind::kCopy, 1, 10),   packet(WireKind::kReply, 2, 99),
                                packet(WireKind::kSent, 2, 20),   packet(WireKind::kSent, 1, 10),
                                packet(WireKind::kCopy, 1, 10),   packet(WireKind::kSent, 1, 10),
                                packet(WireKind::kCopy, 3, 30)};
  std::vector<WirePacket> out;
  CopiesAfterOriginals order;
  for (const WirePacket& p : in) order.add(p, out);
  ASSERT_EQ(out.size(), 6u) << "the copy of port 3 waits for its original";
  order.flush(out);
  std::vector<std::pair<WireKind, uint16_t>> got;
  for (const WirePacket& p : out) got.emplace_back(p.kind, p.client_port);
  std::vector<std::pair<WireKind, uint16_t>> want = {{WireKind::kReply, 2}, {WireKind::kSent, 2},
                                                     {WireKind::kSent, 1},  {WireKind::kCopy, 1},
                                                     {WireKind::kSent, 1},  {WireKind::kCopy, 1},
                                                     {WireKind::kCopy, 3}};
  EXPECT_EQ(got, want);
}

// libpcap stamps a record when it reads the batch, up to a second late; the
// kernel's NFULA_TIMESTAMP is when the hook saw the packet.
TEST(WireRecord, TakesTheKernelsStampOverLibpcaps) {
  auto req = nflog_udp(40001, 2049, 1, true, 0, 1795692387005883);
  auto p = wire_packet_from_nflog(req.data(), req.size(), 2049, 5);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->realtime_ns, 1795692387005883000);
  auto bare = nflog_udp(40001, 2049, 1, true);
  EXPECT_EQ(wire_packet_from_nflog(bare.data(), bare.size(), 2049, 5)->realtime_ns, 5);
}

}  // namespace
}  // namespace rpclab::harness
