// Out of descriptors, accept() fails while the listening socket stays
// readable, so a server's poll loop would spin at 100% CPU. A stream server
// that meets this leaves its listener out of poll() for a moment instead
// (new connections wait in the kernel's backlog) and says so once per
// episode, and again when it accepts once more.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <string>

namespace rpclab {

class AcceptRest {
 public:
  explicit AcceptRest(std::string transport) : transport_(std::move(transport)) {}

  bool resting() const { return std::chrono::steady_clock::now() < until_; }
  // accept() (or a spare descriptor) failed with `err`: rest for a moment.
  void rest(int err);
  // The same, for a cause that is not an errno (a library that does not say).
  void rest_because(const std::string& why);
  // Descriptors were freed: try accept() again now, still in the episode.
  void retry_now() { until_ = {}; }
  // A connection was accepted: the episode is over.
  void end();

  // accept4() on `listen_fd` with `flags`: the new descriptor, its peer in
  // `peer`, and the episode over; or -1, having rested if the cause was a
  // lack of descriptors or memory (else nothing waits: EAGAIN, a peer gone).
  int accept(int listen_fd, sockaddr_storage* peer, socklen_t* peer_len, int flags);

 private:
  std::string transport_;
  std::chrono::steady_clock::time_point until_{};
  bool episode_ = false;  // said "cannot accept" and not yet "accepting again"
};

}  // namespace rpclab
