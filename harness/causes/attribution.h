// Why each call ran more than once: one cause for every execution of a
// (client_id, seq) beyond its first, decided from the server's journal
// (what ran, with the transport's identity of each request), the client's
// record (how many times the application sent the call) and, where one was
// taken, the wire as the client's end of the link saw it (wire_record.h).
// A pure function: the cell runner feeds it, the tests feed it by hand.
//
// The rules. First each execution by the journal and the client record:
//   journal attempt > 0 (gRPC grpc-previous-rpc-attempts) -> library-retry
//   a request identity (XID, call id) not seen before for this seq, while
//     the client record has an application attempt left -> app-retry
//   no identity known, an application attempt left       -> app-retry
//   a new identity and no attempt left                   -> unexplained
// Then the repeats of one XID from one socket, by the wire. Replaying the
// client's socket as libtirpc's clnt_dg_call reads it labels each
// transmission: the client reads the replies that reached its socket
// oldest first; each reply to another XID makes it send its call again at
// once (stale-reply-resend); a resend with no such reply to read was its
// timer's (retransmit-timeout), and a resend that left sooner than 0.95 x
// the retransmit interval after the previous one cannot be, so it read a
// reply the wire lists out of place. Each call has a budget of
// ceil(timeout / interval) timer expiries and mismatched replies together;
// the last one ends the call without a send, so a call that gave up read
// one stale reply it did not answer. A call that did not give up read its
// own reply and left every other unread reply to the next call. With
// --drain the client throws away what arrived before the call's first send,
// except what a fast resend shows it still read. The duplication rule's
// copies of a transmission are marked (network-copy). Each run is then
// matched to the transmission it came from: the last one the capture saw
// leave before the server's kernel stamped the datagram (both stamps are
// taken in the one sendto). So a datagram the server's socket dropped
// leaves no doubt about which ones ran. Without both stamps, only what is
// certain whichever datagrams were lost is given a cause, and the rest is
// unexplained. No wire, a wire that dropped packets, an XID the wire never
// saw sent (or, with no port in the journal, saw sent from two ports) ->
// unexplained. docs/dependability.md ("How a cause is decided") is the
// same, step by step.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/record/causes.h"

namespace rpclab::harness {

// One executed NEXT from the journal (kind 1), in journal order.
struct Execution {
  uint32_t client_id = 0, seq = 0;
  uint8_t known = 0;  // journal::KnownField bits
  uint32_t request_id = 0;
  uint16_t peer_port = 0;
  uint16_t attempt = 0;
  int64_t arrival_ns = 0;  // the kernel's receive stamp (journal::kKnowsKernelArrival); 0: unknown
};

// What a datagram at the client's end of the link was.
enum class WireKind : uint8_t {
  kSent = 1,   // a request as the client sent it, before the fault rules
  kReply = 2,  // a reply that reached the client, after the fault rules
  kCopy = 3,   // a copy of a request the duplication rule made
};

// One datagram at the client's end of the link, in the order it was seen.
struct WirePacket {
  WireKind kind = WireKind::kSent;
  uint16_t client_port = 0;  // the client socket's port
  uint32_t xid = 0;          // first 4 bytes of the UDP payload, host order
  int64_t realtime_ns = 0;
};

struct Wire {
  std::vector<WirePacket> packets;
  uint64_t drops = 0;  // packets the capture lost (pcap_stats): their executions stay unexplained
};

struct AttributionInput {
  std::vector<Execution> executions;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> app_attempts;  // (client, seq) -> attempts; absent: 1
  std::optional<Wire> wire;  // empty: no capture
  bool drains_stale_replies = false;  // the client empties its socket before each call (--drain on)
  int retransmit_ms = 0;  // clnt_dg's retransmit interval (CLSET_RETRY_TIMEOUT); 0: unknown, no timing rule
  int timeout_ms = 0;     // the call's total time (CLSET_TIMEOUT, or the stub's 25 s); 0: unknown, no budget
};

// The transmission an extra execution came from, where the kernel's stamps
// matched it to one: when it left, when its XID's transmission before it
// left (0: unknown), and the client socket's port.
struct Origin {
  int64_t left_ns = 0;
  int64_t previous_ns = 0;
  uint16_t client_port = 0;
};

// clnt_dg's give-up budget: the timer expiries and mismatched replies a
// call can take, each one costing min(interval, what is left of the
// timeout): ceil(timeout / interval) in whole ms; 0 when either is unknown.
uint32_t give_up_budget(int timeout_ms, int retransmit_ms);

struct Attribution {
  std::vector<Cause> causes;  // one per extra execution, in journal order
  std::vector<Origin> origins;  // beside causes: where each came from (all 0 when matched by counts)
  CauseCounts counts;         // their tally; counts.total() == extra_executions
  uint64_t extra_executions = 0;
  Cascades cascades;
};

// Throws std::logic_error if the tally does not add up (a defect, never data).
Attribution attribute(const AttributionInput& in);

}  // namespace rpclab::harness
