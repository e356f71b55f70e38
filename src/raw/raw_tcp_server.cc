// Floor server over TCP: one thread, one poll loop, non-blocking sockets.
//
// Why not a thread per connection: libtirpc's svc_vc server, which this is
// the floor for, is one thread polling every connection, so the comparison
// keeps the same shape (no hand-off between threads on either side); a
// stalled or garbage-spewing connection costs one buffer here, not a thread;
// and per-call mode's thousands of connections cost no thread start each.
// A connection with a reply still to write is not read from until the reply
// is gone, so a client that sends without reading cannot grow our memory.
// The buffers of all connections together are capped (kMaxHeldBytes): past
// it, the connection holding the most is closed. Out of descriptors, the
// listening socket rests (AcceptRest) instead of spinning on accept().
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "server/accept_rest.h"
#include "common/inet.h"
#include "raw/raw_io.h"
#include "raw/raw_service.h"
#include "raw/raw_transport.h"
#include "server/server_core.h"

namespace rpclab::raw {
namespace {

// Buffer memory held across every connection: 16 frames of the largest
// size. Without a cap, N peers that each start a 16 MiB frame and stall
// would make the server hold N x 16 MiB.
constexpr size_t kMaxHeldBytes = size_t{256} << 20;

struct Connection {
  int fd = -1;
  RequestOrigin origin;  // the peer and this server's number for the connection
  FrameDecoder decoder;
  std::string out;   // replies not yet written
  size_t sent = 0;   // bytes of `out` already written

  bool writing() const { return sent < out.size(); }
  // Memory this connection keeps: a buffer keeps its size after use.
  size_t held() const { return decoder.capacity() + out.capacity(); }
};

class RawTcpServer : public RpcServer {
 public:
  RawTcpServer(int listen_fd, ServerCore& core, bool nodelay)
      : listen_fd_(listen_fd), port_(bound_port(listen_fd)), core_(core), nodelay_(nodelay) {}

  ~RawTcpServer() override {
    for (const auto& c : conns_) ::close(c->fd);
    ::close(listen_fd_);
  }

  uint16_t port() const override { return port_; }

  void serve(const std::atomic<bool>& stop) override {
    std::vector<pollfd> fds;
    while (!stop.load()) {
      // A negative fd is left out by poll(): the listener rests while paused.
      bool accepting = !accept_rest_.resting();
      fds.assign(1, pollfd{accepting ? listen_fd_ : -1, POLLIN, 0});
      for (const auto& c : conns_) fds.push_back({c->fd, short(c->writing() ? POLLOUT : POLLIN), 0});
      int n = ::poll(fds.data(), fds.size(), 100);
      if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("poll failed: ") + std::strerror(errno));
      if (n <= 0) continue;
      for (size_t i = 0; i < conns_.size(); ++i)
        if (fds[i + 1].revents) service(*conns_[i], fds[i + 1].revents);
      enforce_cap();
      size_t before = conns_.size();
      conns_.erase(std::remove_if(conns_.begin(), conns_.end(), [](const auto& c) { return c->fd < 0; }),
                   conns_.end());
      if (conns_.size() < before) accept_rest_.retry_now();  // descriptors were freed
      if (fds[0].revents & POLLIN) accept_all();
    }
  }

 private:
  void accept_all() {
    for (;;) {
      sockaddr_storage peer{};
      socklen_t peer_len = 0;
      int fd = accept_rest_.accept(listen_fd_, &peer, &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN: nothing more waiting (or resting)
      if (nodelay_) {
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      }
      conns_.push_back(std::make_unique<Connection>());
      conns_.back()->fd = fd;
      conns_.back()->origin.set_peer(reinterpret_cast<const sockaddr*>(&peer), peer_len);
      conns_.back()->origin.set_connection(++connections_accepted_);
    }
  }

  // Over the cap, the open connections holding the most buffer memory go,
  // largest first, until the rest fit.
  void enforce_cap() {
    size_t held = 0;
    for (const auto& c : conns_)
      if (c->fd >= 0) held += c->held();
    while (held > kMaxHeldBytes) {
      Connection* largest = nullptr;
      for (const auto& c : conns_)
        if (c->fd >= 0 && (!largest || c->held() > largest->held())) largest = c.get();
      std::fprintf(stderr,
                   "rpclab-server: raw-tcp: connections hold %zu MiB of buffers, over the %zu MiB cap: closing one "
                   "that holds %zu MiB\n",
                   held >> 20, kMaxHeldBytes >> 20, largest->held() >> 20);
      held -= largest->held();
      close_connection(*largest);
    }
  }

  void service(Connection& c, short revents) {
    bool ok = c.writing() ? flush(c) : read_and_serve(c);
    if (!ok || (revents & (POLLERR | POLLNVAL))) close_connection(c);
  }

  // The Connection itself goes at the end of the round; its fd goes now.
  void close_connection(Connection& c) {
    ::close(c.fd);
    c.fd = -1;
  }

  // Reads what has arrived and answers every whole request in it. False
  // when the connection is done: closed, broken, or past resynchronising.
  bool read_and_serve(Connection& c) {
    ssize_t n = ::recv(c.fd, buffer_, sizeof buffer_, 0);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.decoder.feed({buffer_, static_cast<size_t>(n)});
    FrameView request;
    DecodeResult result;
    while ((result = c.decoder.next(&request)) == DecodeResult::kFrame) serve_frame(core_, request, &c.out, c.origin);
    if (result == DecodeResult::kTooLong) return false;  // a length we refuse: the stream is lost
    return flush(c);
  }

  bool flush(Connection& c) {
    while (c.writing()) {
      ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      c.sent += static_cast<size_t>(n);
    }
    c.out.clear();
    c.sent = 0;
    return true;
  }

  int listen_fd_;
  uint16_t port_;
  ServerCore& core_;
  bool nodelay_;
  std::vector<std::unique_ptr<Connection>> conns_;  // by pointer: a buffer leaves with its connection
  AcceptRest accept_rest_{"raw-tcp"};
  uint32_t connections_accepted_ = 0;
  char buffer_[256 * 1024];
};

}  // namespace

std::unique_ptr<RpcServer> make_tcp_server(const ServerOptions& options, ServerCore& core) {
  int fd = bind_socket(SOCK_STREAM, options.host, options.port);
  set_nonblocking(fd);
  return std::make_unique<RawTcpServer>(fd, core, options.settings.on(kTcpNodelay));
}

}  // namespace rpclab::raw
