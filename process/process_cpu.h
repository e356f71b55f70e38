// The CPU time a process on this machine has used so far, from
// /proc/<pid>/stat (utime and stime, every thread's, in clock ticks: 10 ms
// steps where USER_HZ is 100). Speed measures an adapter's server this way
// when it writes no stats file (docs/adapters.md, "server_stats").
#pragma once

#include <sys/types.h>

#include <optional>

namespace rpclab::process {

struct ProcessCpu {
  double user_us = 0, sys_us = 0;
};

// Nothing when the process is gone or its stat file cannot be read.
std::optional<ProcessCpu> process_cpu(pid_t pid);

}  // namespace rpclab::process
