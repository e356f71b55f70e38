// --client-host: a trial's clients on another machine. They start over ssh
// in a folder there, behind a dead-man switch of their own (its cleanup.sh
// kills them, so a controller that dies leaves no client calling), get
// SIGTERM there at the cell's time limit, and their call records and logs
// come back with scp before the join reads them here.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "harness/record/cell_config.h"
#include "harness/placement/cell_processes.h"
#include "harness/remote/remote_session.h"

namespace rpclab::harness {

// As run_clients(), on `host`: `dir_name` is the trial's folder under the
// run's remote folder, `deadline_s` the watchdog's. Throws CellFailure,
// Interrupted or process::RemoteError; the remote folder goes either way.
ClientResults run_remote_clients(const CellConfig& cell, RemoteSession& host, const std::string& dir_name,
                                 const std::string& endpoint, const CellFiles& local, int deadline_s,
                                 std::chrono::seconds limit, const std::function<void()>& tick,
                                 const std::atomic<bool>* stop);

}  // namespace rpclab::harness
