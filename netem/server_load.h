// Levy's load axis: N CPU-bound hog processes (infinite loops, no I/O) on
// the server's CPUs for the length of a cell, and what the load really was.
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "netem/child_process.h"
#include "netem/command_log.h"

namespace rpclab::netem {

struct MeasuredLoad {
  int hogs = 0;
  double loadavg_1m = 0;       // /proc/loadavg at the end of the cell
  double run_queue_mean = 0;   // mean procs_running (/proc/stat), sampled every 100 ms
  int samples = 0;
};

class ServerLoad {
 public:
  // Starts `hogs` processes pinned to `cpus` (empty = any) and a sampler.
  ServerLoad(int hogs, const std::vector<int>& cpus, CommandLog& log);
  ~ServerLoad();  // stops the hogs if finish() was not called
  MeasuredLoad finish();  // stops hogs and sampler, returns the measurement

 private:
  int hogs_;
  std::vector<pid_t> pids_;
  std::atomic<bool> sampling_{true};
  std::thread sampler_;
  double run_queue_sum_ = 0;
  int samples_ = 0;
};

}  // namespace rpclab::netem
