#include "nfs/step_gate.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rpclab::nfs {

void wait_at_gate(const std::string& fifo, std::chrono::milliseconds within) {
  // Non-blocking, so the open returns at once and the wait has a deadline;
  // until a writer has come, poll() reports nothing (no POLLHUP).
  int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open the step gate " + fifo + ": " + std::strerror(errno));
  auto deadline = std::chrono::steady_clock::now() + within;
  std::string error;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      error = "nobody opened the step gate " + fifo + " within " + std::to_string(within.count()) + " ms";
      break;
    }
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::string("poll on the step gate: ") + std::strerror(errno);
      break;
    }
    if (n == 0) continue;
    char byte;
    ssize_t got = ::read(fd, &byte, 1);
    if (got == 1) break;
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    error = "the step gate " + fifo + " was closed without letting the step go";
    break;
  }
  ::close(fd);
  if (!error.empty()) throw std::runtime_error(error);
}

}  // namespace rpclab::nfs
