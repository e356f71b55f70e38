// What every NFS server row does the same way: wait until MOUNT v3 and NFS
// v3 answer NULL from the client's namespace, and read a log or a /proc file.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "process/child_process.h"
#include "process/command_log.h"

namespace rpclab::harness::nfs {

// Polls `rpcinfo -T <transport> address 100005 3` and `... 100003 3` from
// client_netns for each transport until all answer, or throws
// std::runtime_error naming `who` when `server` ends first or the deadline
// passes; `why` (the log's tail) goes into the message.
void wait_until_served(const std::string& who, const std::string& address, const std::string& client_netns,
                       const std::vector<std::string>& transports, process::ChildProcess& server,
                       std::chrono::milliseconds within, const std::function<std::string()>& why,
                       process::CommandLog& log);

// A text file whole ("" when it cannot be read).
std::string read_text(const std::string& path);
// The last `lines` lines of a text file ("" when it cannot be read).
std::string file_tail(const std::string& path, size_t lines);

}  // namespace rpclab::harness::nfs
