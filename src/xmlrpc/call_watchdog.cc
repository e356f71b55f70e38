#include "xmlrpc/call_watchdog.h"

#include <sys/socket.h>

namespace rpclab::xmlrpc {

CallWatchdog& CallWatchdog::instance() {
  // Never destroyed: its thread runs until the process ends.
  static CallWatchdog* watchdog = new CallWatchdog;
  return *watchdog;
}

uint64_t CallWatchdog::arm(int fd, std::chrono::milliseconds limit) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_) {
    started_ = true;
    std::thread([this] { watch(); }).detach();
  }
  uint64_t token = next_token_++;
  watches_[token] = Watch{fd, Clock::now() + limit};
  changed_.notify_one();
  return token;
}

bool CallWatchdog::disarm(uint64_t token) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = watches_.find(token);
  bool fired = it != watches_.end() && it->second.fired;
  if (it != watches_.end()) watches_.erase(it);
  return fired;
}

void CallWatchdog::watch() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    Clock::time_point next = Clock::time_point::max();
    for (auto& [token, w] : watches_) {
      if (w.fired) continue;
      if (Clock::now() >= w.deadline) {
        ::shutdown(w.fd, SHUT_RDWR);
        w.fired = true;
      } else if (w.deadline < next) {
        next = w.deadline;
      }
    }
    if (next == Clock::time_point::max())
      changed_.wait(lock);
    else
      changed_.wait_until(lock, next);
  }
}

}  // namespace rpclab::xmlrpc
