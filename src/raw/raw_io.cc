#include "raw/raw_io.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>

namespace rpclab::raw {

int Deadline::remaining_ms() const {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end_ - std::chrono::steady_clock::now());
  // Round up, so a wait with less than 1 ms left still waits instead of spinning.
  return left.count() < 0 ? 0 : static_cast<int>(left.count()) + 1;
}

bool wait_ready(int fd, short events, const Deadline& deadline) {
  for (;;) {
    int left = deadline.remaining_ms();
    if (left == 0) return false;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, left);
    if (n > 0) return true;  // readiness or an error: the next syscall reports which
    if (n < 0 && errno != EINTR) return true;
  }
}

int send_all(int fd, std::string_view header, std::string_view body, const Deadline& deadline) {
  size_t done = 0, total = header.size() + body.size();
  while (done < total) {
    iovec iov[2];
    int count = 0;
    if (done < header.size())
      iov[count++] = {const_cast<char*>(header.data() + done), header.size() - done};
    size_t body_done = done > header.size() ? done - header.size() : 0;
    if (body_done < body.size()) iov[count++] = {const_cast<char*>(body.data() + body_done), body.size() - body_done};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = count;
    ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n >= 0) {
      done += static_cast<size_t>(n);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_ready(fd, POLLOUT, deadline)) return ETIMEDOUT;
    } else if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

CallStatus io_failure(ErrorKind otherwise, const std::string& what, int err) {
  ErrorKind kind = err == ETIMEDOUT ? ErrorKind::kTimeout
                   : err == ECONNREFUSED ? ErrorKind::kUnavailable
                                         : otherwise;
  return CallStatus::failure(kind, what + ": " + std::strerror(err));
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace rpclab::raw
