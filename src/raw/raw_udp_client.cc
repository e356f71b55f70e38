// Floor client over UDP: one datagram out, one datagram back, and nothing
// else. It never retransmits: it is the floor, so a lost request or reply
// is simply a timeout, which is exactly what the loss experiments count.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/inet.h"
#include "raw/raw_client.h"
#include "raw/raw_transport.h"

namespace rpclab::raw {
namespace {

class RawUdpClient : public RawClient {
 public:
  RawUdpClient(int fd, const ClientOptions& options) : RawClient(fd, options, kMaxUdpBody) {}

 protected:
  CallStatus exchange(uint32_t call_id, Proc proc, std::string_view body, const Deadline& deadline,
                      FrameView* reply) override {
    if (CallStatus sent = send_request(call_id, proc, body, deadline); !sent.ok()) return sent;
    for (;;) {
      if (!wait_ready(fd_, POLLIN, deadline)) return io_failure(ErrorKind::kTimeout, "no reply", ETIMEDOUT);
      ssize_t n = ::recv(fd_, buffer_, sizeof buffer_, 0);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        // A connected UDP socket reports the ICMP port unreachable here.
        return io_failure(ErrorKind::kCannotReceive, "cannot receive the reply", errno);
      }
      // Garbage, and late replies to calls that timed out, are skipped.
      if (decode_datagram({buffer_, static_cast<size_t>(n)}, reply) == DecodeResult::kFrame &&
          reply->call_id == call_id)
        return CallStatus::success();
    }
  }

  std::string too_big(size_t size) const override {
    return "payload of " + std::to_string(size) + " bytes does not fit in a UDP message of " +
           std::to_string(kMaxIpv4UdpPayload) + " bytes (at most " + std::to_string(kMaxUdpBody) + ")";
  }

 private:
  char buffer_[65536];  // larger than any IPv4 UDP datagram
};

}  // namespace

ClientSettings udp_settings(const ClientOptions& options) {
  ClientSettings s;
  s.timeout_ms = options.timeout_ms.value_or(kDefaultTimeoutMs);
  s.timeout_is_default = !options.timeout_ms;
  s.retry_timeout_ms = -1;  // never retransmits: a lost datagram is a timeout
  s.max_payload = kMaxUdpBody;
  s.library = "none (plain sockets, raw_frame.h)";
  return s;
}

std::unique_ptr<RpcClient> make_udp_client(const ClientOptions& options) {
  sockaddr_in addr = resolve_ipv4(options.host, options.port);
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) throw ConnectError(CallStatus::failure(ErrorKind::kCannotSend, std::strerror(errno)));
  // connect() only fixes the peer (no packet is sent), so replies from
  // anyone else are dropped by the kernel and ICMP errors are reported.
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
    ::close(fd);
    std::string where = format_endpoint(options.host, options.port);
    throw ConnectError(
        CallStatus::failure(ErrorKind::kUnavailable, "cannot address " + where + ": " + std::strerror(err)));
  }
  return std::make_unique<RawUdpClient>(fd, options);
}

}  // namespace rpclab::raw
