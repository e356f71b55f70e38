// Floor client over TCP: one connection per handle (connect_client decides
// how long a handle lives), requests written with one sendmsg, replies read
// through the same FrameDecoder the server uses.
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "common/inet.h"
#include "raw/raw_client.h"
#include "raw/raw_transport.h"

namespace rpclab::raw {
namespace {

class RawTcpClient : public RawClient {
 public:
  RawTcpClient(int fd, const ClientOptions& options) : RawClient(fd, options, kMaxBody) {}

 protected:
  CallStatus exchange(uint32_t call_id, Proc proc, std::string_view body, const Deadline& deadline,
                      FrameView* reply) override {
    if (CallStatus sent = send_request(call_id, proc, body, deadline); !sent.ok()) return sent;
    for (;;) {
      DecodeResult result = decoder_.next(reply);
      if (result == DecodeResult::kTooLong)
        return CallStatus::failure(ErrorKind::kCannotReceive, "reply header claims a body over 16 MiB");
      if (result == DecodeResult::kFrame) {
        if (reply->call_id == call_id) return CallStatus::success();
        continue;  // a reply to an earlier call that timed out
      }
      if (CallStatus status = receive(deadline); !status.ok()) return status;
    }
  }

  std::string too_big(size_t size) const override {
    return "payload of " + std::to_string(size) + " bytes is over the 16 MiB bound of one call";
  }

 private:
  // Waits first, then reads: a reply is never already there just after its
  // request, so reading first would only add a syscall that says EAGAIN.
  CallStatus receive(const Deadline& deadline) {
    for (;;) {
      if (!wait_ready(fd_, POLLIN, deadline)) return io_failure(ErrorKind::kTimeout, "no reply", ETIMEDOUT);
      ssize_t n = ::recv(fd_, buffer_, sizeof buffer_, 0);
      if (n > 0) {
        decoder_.feed({buffer_, static_cast<size_t>(n)});
        return CallStatus::success();
      }
      if (n == 0) return CallStatus::failure(ErrorKind::kCannotReceive, "server closed the connection");
      if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
        return io_failure(ErrorKind::kCannotReceive, "cannot receive the reply", errno);
    }
  }

  FrameDecoder decoder_;
  char buffer_[256 * 1024];
};

}  // namespace

ClientSettings tcp_settings(const ClientOptions& options) {
  ClientSettings s;
  s.timeout_ms = options.timeout_ms.value_or(kDefaultTimeoutMs);
  s.timeout_is_default = !options.timeout_ms;
  s.retry_timeout_ms = -1;  // the floor never retransmits; TCP does underneath
  s.max_payload = kMaxBody;
  s.library = "none (plain sockets, raw_frame.h)";
  return s;
}

std::unique_ptr<RpcClient> make_tcp_client(const ClientOptions& options) {
  sockaddr_in addr = resolve_ipv4(options.host, options.port);
  std::string error;
  int err_no = 0;
  int fd = connect_tcp(addr, options.timeout_ms.value_or(kDefaultTimeoutMs), options.settings.on(kTcpNodelay), &error,
                       &err_no);
  if (fd < 0) {
    ErrorKind kind = err_no == ETIMEDOUT ? ErrorKind::kTimeout : ErrorKind::kUnavailable;
    throw ConnectError(
        CallStatus::failure(kind, "cannot connect to " + format_endpoint(options.host, options.port) + ": " + error));
  }
  set_nonblocking(fd);
  return std::make_unique<RawTcpClient>(fd, options);
}

}  // namespace rpclab::raw
