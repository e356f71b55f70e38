// IPv4 addresses and sockets shared by the socket-level adapters.
#pragma once

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace rpclab {

// One server's address as given (a host name stays a name).
struct Endpoint {
  std::string host;
  uint16_t port = 0;
};

// "127.0.0.1" or a host name -> address; throws SetupError naming the host.
sockaddr_in resolve_ipv4(const std::string& host, uint16_t port);
// The same, as text: "127.0.0.1" for "localhost".
std::string resolve_ipv4_text(const std::string& host);
std::string format_endpoint(const std::string& host, uint16_t port);  // "host:port"
inline std::string format_endpoint(const Endpoint& e) { return format_endpoint(e.host, e.port); }

// A socket bound to host:port (port 0 = any), listening when it is a stream.
// Throws SetupError with the reason and the fix (e.g. port in use).
int bind_socket(int type, const std::string& host, uint16_t port);
uint16_t bound_port(int fd);

// A TCP socket connected to `addr` within `timeout_ms`; returns the fd, or -1
// with `error` set (errno text), never throws: a refused connect is a
// call outcome, not a setup failure.
int connect_tcp(const sockaddr_in& addr, int timeout_ms, bool nodelay, std::string* error, int* err_no);

// Sun RPC over UDP: the replies queued on a client's socket that answer
// no call under way (late or duplicated replies of earlier calls), read
// and dropped without blocking. A datagram whose first word, the XID, is
// `keep_xid` stops it and stays queued: it answers the call being
// retried. Returns how many were dropped. (libtirpc's clnt_dg answers
// each queued stale reply by resending at once: docs/results/nfs.md,
// "The cause in libtirpc's clnt_dg_call".)
size_t drop_stale_replies(int fd, std::optional<uint32_t> keep_xid = std::nullopt);
// A socket filter on a Sun RPC UDP client's socket: from now on the kernel
// queues only datagrams whose XID is `xid` (the call about to be made),
// so a stale reply never reaches the library. Datagrams queued before
// stay (drop them with drop_stale_replies). Throws SetupError if the
// kernel refuses the filter.
void accept_only_xid(int fd, uint32_t xid);

}  // namespace rpclab
