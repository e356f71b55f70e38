// The wire as the client's end of a two-host link saw it: each request the
// client sent (before the fault rules touched it) and each reply that
// reached it (after them), by XID. Written by the capture (wire_capture.h)
// into the trial folder as `wire.bin`, read by the attribution
// (attribution.h). Format: docs/results-format.md ("The wire record").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/causes/attribution.h"

namespace rpclab::harness {

class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::string_view kWireMagic = "RPCLWIR1";

// The eBPF capture sees the copy `dup` makes before its original (the rule
// sends it from inside the original's egress hook); the wire lists a copy
// after the transmission it copies, as the attribution reads it. Each copy
// waits for the next request of its port and XID that is not a copy.
class CopiesAfterOriginals {
 public:
  void add(const WirePacket& p, std::vector<WirePacket>& out);
  void flush(std::vector<WirePacket>& out);  // copies whose original never came, last

 private:
  std::vector<WirePacket> held_;
};

std::string format_wire(const Wire& wire);
Wire parse_wire(std::string_view bytes);  // throws WireError

// One packet of libpcap's DLT_NFLOG (an NFLOG header, then TLVs; the
// payload TLV holds the IPv4 packet) as a WirePacket: a UDP datagram to
// `server_port` is a request, one from it a reply. Anything else (another
// protocol, a fragment, too short for an XID): nullopt. Its time is the
// record's NFULA_TIMESTAMP, or `realtime_ns` (libpcap's) when it has none.
std::optional<WirePacket> wire_packet_from_nflog(const unsigned char* data, size_t len, uint16_t server_port,
                                                 int64_t realtime_ns);

}  // namespace rpclab::harness
