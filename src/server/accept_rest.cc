#include "server/accept_rest.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rpclab {
namespace {

constexpr auto kRest = std::chrono::milliseconds(100);

}  // namespace

void AcceptRest::rest(int err) { rest_because(std::strerror(err)); }

void AcceptRest::rest_because(const std::string& why) {
  until_ = std::chrono::steady_clock::now() + kRest;
  if (episode_) return;
  episode_ = true;
  std::fprintf(stderr,
               "rpclab-server: %s: cannot accept a connection: %s; new connections wait in the backlog until some "
               "close (raise the limit with ulimit -n)\n",
               transport_.c_str(), why.c_str());
}

void AcceptRest::end() {
  until_ = {};
  if (!episode_) return;
  episode_ = false;
  std::fprintf(stderr, "rpclab-server: %s: accepting connections again\n", transport_.c_str());
}

int AcceptRest::accept(int listen_fd, sockaddr_storage* peer, socklen_t* peer_len, int flags) {
  *peer_len = sizeof *peer;
  int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(peer), peer_len, flags);
  if (fd >= 0) {
    end();
  } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
    rest(errno);
  }
  return fd;
}

}  // namespace rpclab
