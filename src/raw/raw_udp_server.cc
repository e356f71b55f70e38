// Floor server over UDP: one socket, one datagram in, one datagram out.
// Datagrams that are not a whole frame are dropped without a word, as a
// kernel drops a bad packet; a well-framed request the server cannot run
// gets an ERROR reply.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/inet.h"
#include "raw/raw_io.h"
#include "raw/raw_service.h"
#include "raw/raw_transport.h"
#include "server/server_core.h"

namespace rpclab::raw {
namespace {

// Datagrams handled per wake-up before the stop flag is looked at again,
// so a flood cannot keep the server from stopping.
constexpr int kBurst = 1024;

class RawUdpServer : public RpcServer {
 public:
  RawUdpServer(int fd, ServerCore& core) : fd_(fd), port_(bound_port(fd)), core_(core) {}
  ~RawUdpServer() override { ::close(fd_); }

  uint16_t port() const override { return port_; }

  void serve(const std::atomic<bool>& stop) override {
    while (!stop.load()) {
      pollfd p{fd_, POLLIN, 0};
      int n = ::poll(&p, 1, 100);
      if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("poll failed: ") + std::strerror(errno));
      for (int i = 0; n > 0 && i < kBurst && serve_one(); ++i) {
      }
    }
  }

 private:
  // Answers one waiting datagram; false when none is waiting.
  bool serve_one() {
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof peer;
    ssize_t n = ::recvfrom(fd_, buffer_, sizeof buffer_, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&peer), &peer_len);
    if (n < 0) return errno == EINTR;
    FrameView request;
    if (decode_datagram({buffer_, static_cast<size_t>(n)}, &request) != DecodeResult::kFrame) return true;
    reply_.clear();
    RequestOrigin origin;
    origin.set_peer(reinterpret_cast<const sockaddr*>(&peer), peer_len);
    serve_frame(core_, request, &reply_, origin);
    // A reply that cannot go out is lost like any datagram; the client times out.
    ::sendto(fd_, reply_.data(), reply_.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&peer), peer_len);
    return true;
  }

  int fd_;
  uint16_t port_;
  ServerCore& core_;
  char buffer_[65536];  // larger than any IPv4 UDP datagram
  std::string reply_;
};

}  // namespace

std::unique_ptr<RpcServer> make_udp_server(const ServerOptions& options, ServerCore& core) {
  int fd = bind_socket(SOCK_DGRAM, options.host, options.port);
  return std::make_unique<RawUdpServer>(fd, core);
}

}  // namespace rpclab::raw
