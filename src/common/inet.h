// IPv4 addresses and sockets shared by the socket-level adapters.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <string>

namespace rpclab {

// "127.0.0.1" or a host name -> address; throws SetupError naming the host.
sockaddr_in resolve_ipv4(const std::string& host, uint16_t port);
// The same, as text: "127.0.0.1" for "localhost".
std::string resolve_ipv4_text(const std::string& host);
std::string format_endpoint(const std::string& host, uint16_t port);  // "host:port"

// A socket bound to host:port (port 0 = any), listening when it is a stream.
// Throws SetupError with the reason and the fix (e.g. port in use).
int bind_socket(int type, const std::string& host, uint16_t port);
uint16_t bound_port(int fd);

// A TCP socket connected to `addr` within `timeout_ms`; returns the fd, or -1
// with `error` set (errno text), never throws: a refused connect is a
// call outcome, not a setup failure.
int connect_tcp(const sockaddr_in& addr, int timeout_ms, bool nodelay, std::string* error, int* err_no);

}  // namespace rpclab
