#include "support/proc_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>

namespace rpclab::test {

double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {  // field 3 is the state
    if (i == 14) utime = std::stoull(field);
    if (i == 15) {
      stime = std::stoull(field);
      break;
    }
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

uint64_t status_kib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, field.size() + 1, field + ":") == 0) return std::stoull(line.substr(field.size() + 1));
  return 0;
}

namespace {

// One socket of /proc/net/{udp,tcp} bound to 127.0.0.1:port.
struct SocketLine {
  std::string state;  // hex, e.g. 0A for a listening TCP socket
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
    s.rx_queue = std::stoull(queues.substr(queues.find(':') + 1), nullptr, 16);
    if (!each(s)) return;
  }
}

}  // namespace

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

uint64_t tcp_unread_bytes(uint16_t port) {
  uint64_t unread = 0;
  for_each_socket("/proc/net/tcp", port, [&unread](SocketLine& s) {
    if (s.state != "0A") unread += s.rx_queue;  // 0A: the listening socket itself
    return true;
  });
  return unread;
}

uint64_t raise_open_files(uint64_t want) {
  rlimit lim{};
  ::getrlimit(RLIMIT_NOFILE, &lim);
  if (lim.rlim_cur < want) {
    lim.rlim_cur = std::min<rlim_t>(want, lim.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &lim);
    ::getrlimit(RLIMIT_NOFILE, &lim);
  }
  return lim.rlim_cur;
}

}  // namespace rpclab::test
