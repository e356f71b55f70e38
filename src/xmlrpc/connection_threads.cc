#include "xmlrpc/connection_threads.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <system_error>

namespace rpclab::xmlrpc {

ConnectionThreads::ConnectionThreads(int listen_fd, std::string transport, bool nodelay,
                                     ServeConnection serve_connection)
    : listen_fd_(listen_fd),
      nodelay_(nodelay),
      serve_connection_(std::move(serve_connection)),
      accept_rest_(std::move(transport)) {}

ConnectionThreads::~ConnectionThreads() {
  for (Connection& c : conns_) ::shutdown(c.fd, SHUT_RDWR);
  reap(true);
}

void ConnectionThreads::serve(const std::atomic<bool>& stop) {
  while (!stop.load()) {
    pollfd p{accept_rest_.resting() ? -1 : listen_fd_, POLLIN, 0};
    int n = ::poll(&p, 1, 100);
    if (reap(false)) accept_rest_.retry_now();  // descriptors were freed
    if (n > 0 && (p.revents & POLLIN)) accept_one();
  }
}

void ConnectionThreads::accept_one() {
  sockaddr_storage peer{};
  socklen_t peer_len = 0;
  int fd = accept_rest_.accept(listen_fd_, &peer, &peer_len, SOCK_CLOEXEC);
  if (fd < 0) return;
  if (nodelay_) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  Connection& c = conns_.emplace_back();
  c.fd = fd;
  c.origin.set_peer(reinterpret_cast<const sockaddr*>(&peer), peer_len);
  c.origin.set_connection(++connections_accepted_);
  try {
    c.thread = std::thread([this, &c] {
      serve_connection_(c.fd, c.origin);
      c.done = true;
    });
  } catch (const std::system_error& e) {  // no thread to be had: as if out of descriptors
    ::close(fd);
    conns_.pop_back();
    accept_rest_.rest(e.code().value());
  }
}

bool ConnectionThreads::reap(bool all) {
  bool any = false;
  for (auto it = conns_.begin(); it != conns_.end();) {
    if (!all && !it->done.load()) {
      ++it;
      continue;
    }
    it->thread.join();
    ::close(it->fd);
    it = conns_.erase(it);
    any = true;
  }
  return any;
}

}  // namespace rpclab::xmlrpc
