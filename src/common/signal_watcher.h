// Turns SIGTERM/SIGINT/SIGHUP into a stop flag and SIGUSR1 into a callback,
// on a thread of its own, and ignores SIGPIPE for the whole process. Construct it before any other thread starts (gRPC
// starts some), so every thread inherits the blocked mask.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace rpclab {

class SignalWatcher {
 public:
  explicit SignalWatcher(std::function<void()> on_usr1 = {});
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  const std::atomic<bool>& stop_requested() const { return stop_; }
  int stop_signal() const { return signal_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::atomic<int> signal_{0};
  std::function<void()> on_usr1_;
  std::thread thread_;
};

}  // namespace rpclab
