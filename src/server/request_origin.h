// Who sent a request, as far as its transport can tell: the identity the
// execution journal keeps beside each NEXT, so an extra execution can be
// traced to the packet, connection or attempt that carried it (issue 13).
// An adapter fills what its library exposes and leaves the rest unknown;
// docs/architecture.md ("Request identity") says what each one can tell.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string_view>

namespace rpclab {

struct RequestOrigin {
  uint8_t known = 0;         // journal::KnownField bits for the fields set below
  uint32_t request_id = 0;   // Sun RPC XID, raw frame call id
  uint16_t attempt = 0;      // gRPC: the value of grpc-previous-rpc-attempts (0 on a first attempt)
  uint32_t connection = 0;   // stream transports: numbered by the server from 1 per start
  uint32_t peer_ipv4 = 0;    // host byte order
  uint16_t peer_port = 0;
  int64_t kernel_arrival_ns = 0;  // CLOCK_REALTIME the kernel stamped on the datagram (SIOCGSTAMPNS)

  void set_request_id(uint32_t id);
  void set_attempt(uint16_t n);
  void set_connection(uint32_t id);
  // The datagram's kernel receive time: it tells apart two transmissions of
  // one XID, which a server socket that drops datagrams would leave ambiguous.
  void set_kernel_arrival(int64_t realtime_ns);
  // IPv4 (or IPv4-mapped IPv6) senders only; any other family stays unknown.
  void set_peer(const sockaddr* addr, socklen_t len);
  // gRPC's peer() text, "ipv4:A.B.C.D:PORT"; any other form stays unknown.
  void set_peer_uri(std::string_view uri);
};

}  // namespace rpclab
