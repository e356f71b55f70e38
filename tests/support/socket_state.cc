#include "support/socket_state.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>

namespace rpclab::test {
namespace {

constexpr const char* kListening = "0A";  // TCP_LISTEN in /proc/net/tcp

// ESTABLISHED, SYN_RECV, CLOSE_WAIT: states in which the server has not
// closed its end yet.
bool open_at_server(const std::string& state) { return state == "01" || state == "03" || state == "08"; }

// One socket of /proc/net/{udp,tcp} bound to 127.0.0.1:port.
struct SocketLine {
  std::string state;  // hex, e.g. 0A for a listening TCP socket
  uint64_t tx_queue = 0;
  uint64_t rx_queue = 0;
  std::istringstream rest;  // the fields after tx_queue:rx_queue
};

// Calls `each` for every socket of `table` bound to 127.0.0.1:`port`
// until it returns false.
void for_each_socket(const char* table, uint16_t port, const std::function<bool(SocketLine&)>& each) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // the header
  char local[32];
  std::snprintf(local, sizeof local, "0100007F:%04X", port);
  while (std::getline(in, line)) {
    SocketLine s;
    s.rest.str(line);
    std::string slot, address, remote, queues;
    s.rest >> slot >> address >> remote >> s.state >> queues;
    if (address != local) continue;
    s.tx_queue = std::stoull(queues.substr(0, queues.find(':')), nullptr, 16);
    s.rx_queue = std::stoull(queues.substr(queues.find(':') + 1), nullptr, 16);
    if (!each(s)) return;
  }
}

// Sums `field` over the server's connections on `port`.
uint64_t sum_over_connections(uint16_t port, uint64_t SocketLine::*field) {
  uint64_t sum = 0;
  for_each_socket("/proc/net/tcp", port, [&sum, field](SocketLine& s) {
    if (s.state != kListening) sum += s.*field;
    return true;
  });
  return sum;
}

}  // namespace

uint64_t tcp_unread_bytes(uint16_t port) { return sum_over_connections(port, &SocketLine::rx_queue); }

uint64_t tcp_unsent_bytes(uint16_t port) { return sum_over_connections(port, &SocketLine::tx_queue); }

int tcp_server_connections(uint16_t port) {
  int n = 0;
  for_each_socket("/proc/net/tcp", port, [&n](SocketLine& s) {
    n += open_at_server(s.state);
    return true;
  });
  return n;
}

int tcp_connections_held(pid_t pid, uint16_t port) {
  std::set<std::string> inodes;  // of the process's sockets
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  int n = 0;
  for_each_socket("/proc/net/tcp", port, [&n, &inodes](SocketLine& s) {
    std::string skip, inode;
    s.rest >> skip >> skip >> skip >> skip >> inode;  // tr:tm->when, retrnsmt, uid, timeout, inode
    n += open_at_server(s.state) && inodes.count(inode);
    return true;
  });
  return n;
}

UdpSocketState udp_socket_state(uint16_t port) {
  UdpSocketState state;
  for_each_socket("/proc/net/udp", port, [&state](SocketLine& s) {
    state.found = true;
    state.rx_queue = s.rx_queue;
    std::string skip;
    for (int i = 0; i < 7; ++i) s.rest >> skip;  // tr, tm->when, retrnsmt, uid, timeout, inode, ref
    s.rest >> skip >> state.drops;               // pointer, drops
    return false;
  });
  return state;
}

}  // namespace rpclab::test
