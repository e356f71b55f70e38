// What the kernel says about a process, for tests that must bound a
// server's CPU and memory from the outside (its sockets:
// support/socket_state.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace rpclab::test {

double cpu_seconds(pid_t pid);                         // user + system, from /proc/PID/stat

uint64_t status_kib(pid_t pid, const std::string& field);  // e.g. "VmHWM" from /proc/PID/status

// True when no thread of `pid` is running or runnable (/proc/PID/task/*/stat):
// the process has done what it was given and waits for more.
bool every_thread_asleep(pid_t pid);

// Raises this process's soft RLIMIT_NOFILE to at least `want` (up to the
// hard limit); returns the soft limit now in force.
uint64_t raise_open_files(uint64_t want);

}  // namespace rpclab::test
