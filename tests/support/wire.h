// Bytes on the wire, built by hand, for tests that must send what no
// well-behaved client would: Sun RPC call messages (RFC 5531) and record
// marks, and plain loopback sockets to send them on.
#pragma once

#include <cstdint>
#include <string>

namespace rpclab::test {

inline constexpr uint32_t kProgram = 0x20151989;  // idl/rpclab.x

std::string be32(uint32_t v);
std::string xdr_opaque(const std::string& bytes);  // length, bytes, padding to 4
// A CALL with AUTH_NONE credentials and verifier, then `args` as given.
std::string rpc_call(uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc, const std::string& args,
                     uint32_t rpcvers = 2);
std::string record(const std::string& message);  // one last fragment

// Loopback sockets; both throw std::runtime_error when they cannot be made.
int tcp_connect(uint16_t port, int rcvbuf = 0);  // blocking; rcvbuf 0 = default
int udp_socket();
void udp_send(int fd, uint16_t port, const std::string& datagram);
// Sends what it can without blocking (the peer may have stopped reading).
void send_some(int fd, const std::string& bytes);
// Waits up to timeout_ms for a read on `fd`; returns the recv result
// (bytes, 0 at end of stream, -1 on error or timeout).
long recv_within(int fd, std::string* into, int timeout_ms, size_t max = 65536);
// Closes with a reset (SO_LINGER 0) instead of a FIN.
void close_with_reset(int fd);

}  // namespace rpclab::test
