// What the kernel says about a process or a socket, for tests that must
// bound a server's CPU, memory and queues from the outside.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace rpclab::test {

double cpu_seconds(pid_t pid);                         // user + system, from /proc/PID/stat

// Waits until `pid` has used under a tenth of a CPU over 300 ms (it has
// worked through what it was sent), or `limit` passes; false on the latter.
bool wait_until_settled(pid_t pid, std::chrono::milliseconds limit);
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
