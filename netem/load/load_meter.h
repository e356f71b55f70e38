// What the load on the server really was during one trial: the run queue
// of the CPU the server is pinned to, the server's own wait to run, and
// the machine as a whole. Started when the clients start and finished when
// they end, so every trial measures its own window and nothing carries
// over from the one before.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "netem/load/schedstat.h"

namespace rpclab::netem {

struct MeasuredLoad {
  int hogs = 0;
  double seconds = 0;          // the window measured
  int samples = 0;             // samples of the sampled figures
  // The server's CPU, when it is pinned to exactly one: the mean number of
  // tasks running or waiting to run on it. "schedstat" = (time tasks ran +
  // time they waited on its run queue) / window, from /proc/schedstat;
  // "sampled" = tasks in state R on it, counted every sample over
  // /proc/*/task/*/stat, where the kernel keeps no per-CPU schedstat.
  std::optional<double> server_cpu_run_queue;
  std::string server_cpu_method;
  std::optional<int> server_cpu;
  // The server's own threads (/proc/PID/task/*/schedstat): time they waited
  // to run, per timeslice they were given, and in all.
  std::optional<double> server_wait_us_per_timeslice;
  double server_run_s = 0;
  double server_wait_s = 0;
  uint64_t server_timeslices = 0;
  // The whole machine: mean procs_running (/proc/stat) over the samples,
  // and the kernel's one-minute load average at the end (it trails: it
  // still holds the previous trial's load for most of a short one).
  double machine_run_queue = 0;
  double loadavg_1m = 0;
  nlohmann::json to_json() const;
};

class LoadMeter {
 public:
  // Starts measuring now. `server_cpus`: where the server is pinned (empty
  // = not pinned, no per-CPU figure); `sampler_cpus`: where the sampling
  // thread may run, away from the server's CPU so as not to load it.
  LoadMeter(pid_t server, std::vector<int> server_cpus, std::vector<int> sampler_cpus);
  ~LoadMeter();
  MeasuredLoad finish(int hogs);

 private:
  void sample();
  void add_server_threads(bool first);

  pid_t server_;
  std::optional<int> cpu_;
  std::optional<SchedTimes> cpu_start_;  // /proc/schedstat at the start, when the kernel has it
  std::map<pid_t, SchedTimes> threads_;  // each server thread's times at the last sample
  SchedTimes server_times_;              // summed over the window
  double machine_sum_ = 0, cpu_sum_ = 0;
  int samples_ = 0;
  std::atomic<bool> sampling_{true};
  std::thread sampler_;
  double started_s_ = 0;
};

double loadavg_1m();

}  // namespace rpclab::netem
