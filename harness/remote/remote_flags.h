// --server-host and its companions, the same for every experiment: the
// flags, the cells a remote server cannot run yet, and the session opened
// once the run folder (and its commands.log) exists.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/cli_forward.h"
#include "harness/record/cell_config.h"
#include "harness/remote/remote_session.h"

namespace rpclab::harness {

void add_remote_flags(CLI::App* cmd, RemoteOptions& options);

// "" when every cell can run with its server on the remote host, else why
// not and what to do (one message, before anything runs).
std::string remote_refusal(const RemoteOptions& options, const std::vector<CellConfig>& cells);

// nullptr when no --server-host; otherwise connected and checked (with the
// data interface and root for nft there when a cell has faults), or the
// message is printed and *exit_code set (kExitSetup).
// `clients`: the --client-host session when there is one (its data
// address is where the server's faults face).
std::unique_ptr<RemoteSession> open_remote(RemoteOptions options, const std::vector<CellConfig>& cells,
                                           const std::string& program,
                                           const std::string& local_bin_dir, const std::string& run_id,
                                           process::CommandLog& log, int* exit_code, RemoteSession* clients = nullptr);

// nullptr when no --client-host; otherwise connected and checked (packages,
// rpclab-client's version), or the message printed and *exit_code set.
std::unique_ptr<RemoteSession> open_remote_clients(const RemoteOptions& options, const std::string& program,
                                                   const std::string& local_bin_dir, const std::string& run_id,
                                                   process::CommandLog& log, int* exit_code);

}  // namespace rpclab::harness
