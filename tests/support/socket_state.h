// What the kernel says about the loopback sockets of a server's port, from
// /proc/net/tcp and /proc/net/udp: how tests see that a server has read,
// answered or closed something without guessing how long that takes.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace rpclab::test {

// Bytes that loopback TCP connections to `port` hold unread by the server:
// the receive queues of its accepted sockets and of those still waiting to
// be accepted.
uint64_t tcp_unread_bytes(uint16_t port);
// Bytes the server's sockets on `port` have written that the peers have not
// taken yet (their send queues): non-zero while a reply is stuck.
uint64_t tcp_unsent_bytes(uint16_t port);
// The connections on `port` the server has not closed: accepted, or
// waiting in its listener's backlog to be. One its peer closed counts
// until the server closes it too; one the server closed (TIME_WAIT,
// FIN_WAIT, LAST_ACK) belongs to the kernel alone and does not count.
int tcp_server_connections(uint16_t port);
// The same, only those process `pid` holds as descriptors (not those
// still in its listener's backlog).
int tcp_connections_held(pid_t pid, uint16_t port);

// The loopback UDP socket bound to `port`.
struct UdpSocketState {
  bool found = false;
  uint64_t rx_queue = 0;  // bytes waiting to be read
  uint64_t drops = 0;     // datagrams the kernel dropped (receive buffer full)
};
UdpSocketState udp_socket_state(uint16_t port);

}  // namespace rpclab::test
