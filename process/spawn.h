// The one vfork/exec used by command_runner and ChildProcess: the child dies
// with its parent (PR_SET_PDEATHSIG=SIGKILL, set before exec), optionally
// leads its own process group and is pinned to CPUs, and an exec failure
// comes back to the parent as an exception instead of a silent exit 127.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace rpclab::process::detail {

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] already resolved to a path
  std::vector<std::string> env;   // extra NAME=VALUE, overriding the inherited ones
  std::vector<int> cpus;          // empty = any
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;  // -1 = inherit
  bool own_group = true;          // setpgid(0, 0)
};

// Throws CommandError when vfork fails or the program cannot be executed.
pid_t spawn(const SpawnSpec& spec);

// Opens `path` for the child's stdout/stderr (truncating) or stdin; -1 for "".
int open_for_child(const std::string& path, bool for_writing);

}  // namespace rpclab::process::detail
