// Ends a call that outlives its time by shutting its socket down.
// xmlrpc-c's packet-stream client waits for a reply with poll(-1) and has
// no timeout or way to interrupt it; a shut-down socket makes that wait
// end at once, with "the other end closed the socket". One thread per
// process, started by the first call, watches every armed call.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

namespace rpclab::xmlrpc {

class CallWatchdog {
 public:
  static CallWatchdog& instance();

  // Shuts `fd` down unless disarm(token) comes within `limit`.
  uint64_t arm(int fd, std::chrono::milliseconds limit);
  // True if the time ran out and the socket was shut down.
  bool disarm(uint64_t token);

 private:
  using Clock = std::chrono::steady_clock;
  struct Watch {
    int fd;
    Clock::time_point deadline;
    bool fired = false;
  };

  CallWatchdog() = default;
  void watch();

  std::mutex mu_;
  std::condition_variable changed_;
  std::map<uint64_t, Watch> watches_;
  uint64_t next_token_ = 1;
  bool started_ = false;
};

}  // namespace rpclab::xmlrpc
