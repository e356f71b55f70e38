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
// client's socket labels each transmission: it reads replies in the order
// they arrived, and each reply to another XID read during the call makes
// libtirpc's clnt_dg_call send it again at once (XID mismatch ->
// send_again; stale-reply-resend); the call's other transmissions are its
// timer's (retransmit-timeout), and the duplication rule's copies of a
// transmission are marked (network-copy). Each run is then matched to the
// transmission it came from: the last one the capture saw leave before
// the server's kernel stamped the datagram (both stamps are taken in the
// one sendto). So a datagram the server's socket dropped leaves no doubt
// about which ones ran. Without both stamps, only what is certain
// whichever datagrams were lost is given a cause, and the rest is
// unexplained. No wire, a wire that dropped packets, an XID the wire
// never saw sent -> unexplained.
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
};

struct Attribution {
  std::vector<Cause> causes;  // one per extra execution, in journal order
  CauseCounts counts;         // their tally; counts.total() == extra_executions
  uint64_t extra_executions = 0;
  Cascades cascades;
};

// Throws std::logic_error if the tally does not add up (a defect, never data).
Attribution attribute(const AttributionInput& in);

}  // namespace rpclab::harness
