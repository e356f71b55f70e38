// Runs ip/tc/nft (by absolute path: inside a user-mode-linux guest Debian's
// busybox would otherwise answer with its own applets) and logs each one.
#pragma once

#include <string>
#include <vector>

#include "process/command_error.h"
#include "process/command_log.h"

namespace rpclab::process {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// "ip" -> "/usr/sbin/ip" (or /sbin/ip); other names are looked up in PATH.
std::string tool_path(const std::string& name);

// Runs argv (argv[0] resolved by tool_path), in `netns` when not empty
// (`ip netns exec NS ...`), logs it, and returns what it printed.
CommandResult run(const std::vector<std::string>& argv, CommandLog& log, const std::string& netns = "");
// As run(), but a non-zero exit throws CommandError quoting the command and its stderr.
CommandResult run_checked(const std::vector<std::string>& argv, CommandLog& log, const std::string& netns = "");

}  // namespace rpclab::process
