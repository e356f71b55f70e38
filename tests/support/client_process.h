// build/rpclab-client as a real process, with its call record read back.
#pragma once

#include <string>
#include <vector>

#include "client/call_record.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::test {

struct ClientRun {
  ProcessResult process;
  CallRecord record;  // empty when the client wrote none
};

// rpclab-client `args` --record <a file in dir>; `wrapper` as for servers.
ClientRun run_client(const std::vector<std::string>& args, const TempDir& dir,
                     const std::vector<std::string>& wrapper = {});

}  // namespace rpclab::test
