// What the kernel says about a process or a socket, for tests that must
// bound a server's CPU, memory and queues from the outside.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace rpclab::test {

double cpu_seconds(pid_t pid);                         // user + system, from /proc/PID/stat

// Bytes that loopback TCP connections to `port` hold unread by the server:
// the receive queues of its accepted sockets and of those still waiting to
// be accepted, from /proc/net/tcp.
uint64_t tcp_unread_bytes(uint16_t port);
uint64_t status_kib(pid_t pid, const std::string& field);  // e.g. "VmHWM" from /proc/PID/status

// The loopback UDP socket bound to `port`, from /proc/net/udp.
struct UdpSocketState {
  bool found = false;
  uint64_t rx_queue = 0;  // bytes waiting to be read
  uint64_t drops = 0;     // datagrams the kernel dropped (receive buffer full)
};
UdpSocketState udp_socket_state(uint16_t port);

// Raises this process's soft RLIMIT_NOFILE to at least `want` (up to the
// hard limit); returns the soft limit now in force.
uint64_t raise_open_files(uint64_t want);

}  // namespace rpclab::test
