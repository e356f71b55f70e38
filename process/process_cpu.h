// What /proc says of a process on this machine: the CPU time it has used
// so far (/proc/<pid>/stat's utime and stime, every thread's, in clock
// ticks: 10 ms steps where USER_HZ is 100; speed measures an adapter's
// server this way when it writes no stats file, docs/adapters.md,
// "server_stats"), whether it has ended, and the processes it forked.
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

namespace rpclab::process {

struct ProcessCpu {
  double user_us = 0, sys_us = 0;
};

// Nothing when the process is gone or its stat file cannot be read.
std::optional<ProcessCpu> process_cpu(pid_t pid);

// Gone, or a zombie its parent has not reaped yet. (A PID namespace's init
// becomes a zombie only once everything else in its namespace is gone.)
bool process_ended(pid_t pid);

// The processes `pid` forked (its main thread's children).
std::vector<pid_t> child_pids(pid_t pid);

}  // namespace rpclab::process
