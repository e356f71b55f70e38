// A process rpclab started (server, client, hog, guest). It dies with its
// parent (PR_SET_PDEATHSIG=SIGKILL, set before exec), runs in its own process
// group, and is killed and reaped when this object goes away, so no process
// of ours outlives a run however the run ends.
//
// Mind: the kernel sends PR_SET_PDEATHSIG when the *thread* that forked the
// child exits, not the process. Create ChildProcess objects from a thread
// that lives at least as long as they do (the main thread).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "process/command_log.h"

namespace rpclab::process {

struct SpawnOptions {
  std::string netns;              // run inside this namespace (ip netns exec)
  std::vector<int> cpus;          // pin to these CPUs (sched_setaffinity); empty = any
  std::string stdin_path;         // redirect; empty = inherit
  std::string stdout_path;        // redirect; empty = inherit
  std::string stderr_path;        // redirect; empty = inherit
  std::vector<std::string> env;   // extra NAME=VALUE entries
};

class ChildProcess {
 public:
  // Throws CommandError when the program cannot be started.
  ChildProcess(const std::vector<std::string>& argv, const SpawnOptions& options, CommandLog& log);
  ~ChildProcess();  // SIGKILL to the group if still running, then reap
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig);  // to the whole process group
  // Waits up to `timeout`; returns the wait status once it has exited.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);
  std::optional<int> poll();  // non-blocking wait_for(0)
  bool running();
  // SIGTERM, up to `grace` for it to exit, then SIGKILL. Returns the wait status.
  int stop(std::chrono::milliseconds grace);

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
};

// "exited with code 3" / "killed by SIGSEGV" for messages.
std::string describe_wait_status(int status);

}  // namespace rpclab::process
