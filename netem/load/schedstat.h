// The kernel's own accounting of who ran and who waited to run, read from
// /proc. The parsers are pure functions of the files' text, tested on
// captured copies (tests/netem/fixtures/); the readers open the live files.
//
// Levy's load axis is the load on the server's machine: how many tasks
// want the CPU the server runs on. With the server pinned to one CPU that
// is that CPU's run queue, and the server's own wait to run is what the
// load costs it (docs/dependability.md, "Load").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace rpclab::netem {

// Nanoseconds tasks spent running and waiting on a run queue, and how many
// times they were given the CPU (timeslices).
struct SchedTimes {
  uint64_t run_ns = 0;
  uint64_t wait_ns = 0;
  uint64_t timeslices = 0;
  SchedTimes operator-(const SchedTimes& earlier) const;
  SchedTimes& operator+=(const SchedTimes& more);
};

// /proc/PID/task/TID/schedstat: "run_ns wait_ns timeslices".
std::optional<SchedTimes> parse_task_schedstat(const std::string& text);
// /proc/schedstat (kernels built with CONFIG_SCHEDSTATS): the "cpuN" line's
// 7th to 9th numbers, the time tasks ran on CPU N, the time they waited on
// its run queue, and the timeslices it gave. nullopt without such a line.
std::optional<SchedTimes> parse_cpu_schedstat(const std::string& text, int cpu);

// /proc/PID/task/TID/stat: the task's state letter (R = running or
// runnable) and the CPU it runs or waits on (field 39). The command name in
// parentheses may hold spaces and parentheses itself.
struct TaskState {
  char state = '?';
  int cpu = -1;
};
std::optional<TaskState> parse_task_stat(const std::string& text);

// procs_running from /proc/stat: runnable tasks on the whole machine.
std::optional<int> parse_procs_running(const std::string& text);

// Live readers.
std::optional<SchedTimes> read_cpu_schedstat(int cpu);      // nullopt: this kernel keeps no per-CPU schedstat
std::map<pid_t, SchedTimes> read_thread_schedstats(pid_t pid);  // every thread of the process, by thread id
int runnable_on_cpu(int cpu);                                // tasks in state R on that CPU's run queue, now
int procs_running();

}  // namespace rpclab::netem
