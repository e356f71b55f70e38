// Socket I/O with a deadline for the floor clients: non-blocking sockets,
// poll only when the kernel says "not yet", and errno values in, call
// outcomes out.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "transport/outcome.h"

namespace rpclab::raw {

class Deadline {
 public:
  explicit Deadline(int timeout_ms)
      : end_(std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms)) {}
  int remaining_ms() const;  // 0 once passed

 private:
  std::chrono::steady_clock::time_point end_;
};

// Waits until `fd` is ready for `events` (POLLIN/POLLOUT); false once the
// deadline passes first.
bool wait_ready(int fd, short events, const Deadline& deadline);

// Writes `header` then `body` in full on a non-blocking socket. Returns 0,
// or the errno that stopped it (ETIMEDOUT when the deadline passed).
int send_all(int fd, std::string_view header, std::string_view body, const Deadline& deadline);

// An errno from a send or receive as a call outcome: a refusal is
// kUnavailable, a passed deadline kTimeout, anything else `otherwise`.
CallStatus io_failure(ErrorKind otherwise, const std::string& what, int err);

// Makes a socket non-blocking; the floor clients poll for themselves.
void set_nonblocking(int fd);

}  // namespace rpclab::raw
