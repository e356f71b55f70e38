// Every process on the machine, read from /proc, so a test can follow the
// processes a program starts (servers, clients, hogs, guests) and check
// from the outside that none of them outlives it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rpclab::test {

struct ProcessInfo {
  pid_t pid = 0;
  pid_t ppid = 0;
  uint64_t start_ticks = 0;  // with the pid, names one process even after the pid is reused
  std::string comm;
  std::string cmdline;  // NUL separators as spaces
};

std::vector<ProcessInfo> all_processes();

// True while the process that `p` names (pid and start time) still exists
// and is not a zombie waiting for its parent.
bool still_running(const ProcessInfo& p);

// Follows, until stopped, every descendant of `root` that /proc shows
// while it is followed (polled every few milliseconds). A process that
// starts and ends between two polls is missed; one that lives long enough
// to matter is not.
class DescendantWatch {
 public:
  explicit DescendantWatch(pid_t root);
  ~DescendantWatch();
  DescendantWatch(const DescendantWatch&) = delete;
  DescendantWatch& operator=(const DescendantWatch&) = delete;

  std::vector<ProcessInfo> seen();  // every descendant seen so far

 private:
  void poll_once();

  pid_t root_;
  std::atomic<bool> running_{true};
  std::mutex mutex_;
  std::map<std::pair<pid_t, uint64_t>, ProcessInfo> seen_;
  std::thread thread_;
};

}  // namespace rpclab::test
