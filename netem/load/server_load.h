// Levy's load axis: N CPU-bound hog processes (infinite loops, no I/O) on
// the server's CPUs for the length of a trial. What the load really was is
// measured by LoadMeter (load_meter.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <vector>

#include "process/command_log.h"

namespace rpclab::netem {

class ServerLoad {
 public:
  // Starts `hogs` processes pinned to `cpus` (empty = any) and returns once
  // the load is real: every hog is on its CPU and has been given it again
  // after joining its run queue, so the queue has gone round every hog.
  // Waits at most `settle_limit`; settle_s() says how long it took.
  ServerLoad(int hogs, const std::vector<int>& cpus, process::CommandLog& log,
             std::chrono::milliseconds settle_limit = std::chrono::milliseconds(2000));
  ~ServerLoad();  // stops the hogs if stop() was not called
  void stop();
  double settle_s() const { return settle_s_; }
  bool settled() const { return settled_; }

 private:
  void wait_until_runnable(int ready_fd, std::chrono::milliseconds limit);
  std::vector<pid_t> pids_;
  double settle_s_ = 0;
  bool settled_ = true;
};

}  // namespace rpclab::netem
