// A cell's server on the remote host, behind a dead-man switch. Before the
// server starts (and before any fault would be applied), a detached
// watchdog on the remote sleeps until the trial's deadline and then runs the
// trial's cleanup.sh: so the remote is cleaned by the remote itself even if
// this controller is killed, the ssh connection drops, or a fault cuts the
// link. A normal end cancels the watchdog. Everything is logged.
#pragma once

#include <atomic>
#include <string>

#include <nlohmann/json.hpp>

#include "server/ledger.h"
#include "harness/record/cell_config.h"
#include "harness/placement/cell_processes.h"
#include "harness/remote/remote_session.h"
#include "harness/remote/remote_watchdog.h"

namespace rpclab::harness {

class RemoteServer : public TrialServer {
 public:
  // `dir_name`: the trial's folder under the run's remote folder.
  // `deadline_s`: seconds from now when the watchdog cleans up.
  // `fault_removal`: a shell line that removes the faults the trial will
  // apply (after this returns), for cleanup.sh; "" for none. Throws
  // CellFailure (with the server's own words) or process::RemoteError.
  RemoteServer(const CellConfig& cell, RemoteSession& session, const std::string& dir_name, int deadline_s,
               const std::atomic<bool>* stop, const std::string& fault_removal = "");
  ~RemoteServer() override;  // if not stopped: cleanup.sh now, the watchdog cancelled, the folder removed

  std::string endpoint() const override;  // server address (data link) : port
  const std::string& dir() const { return dir_; }
  std::optional<nlohmann::json> stats() override;
  void check_alive() override;
  // A server kept over many trials (speed): the watchdog starts again with
  // `deadline_s` from now, before each trial.
  void keep_for(int deadline_s) override;
  // SIGTERM, wait until it has gone, fetch its files into `local`, cancel
  // the watchdog, remove the remote folder; then the ledger, read here.
  Ledger stop_and_read_ledger(const CellFiles& local) override;
  nlohmann::json to_json() const;  // the watchdog and the remote folder, for the trial
  void describe(TrialRecord& trial) const override { trial.dependability.remote_server = to_json(); }

 private:
  void start_watchdog(int deadline_s);
  void start_server(const CellConfig& cell, const std::atomic<bool>* stop);
  std::string at(const std::string& name) const { return dir_ + "/" + name; }
  void cancel_watchdog();
  void abandon() noexcept;  // cleanup.sh now, the watchdog cancelled, the folder removed

  RemoteSession& session_;
  process::RemoteHost& host_;
  std::string dir_, fault_removal_;
  int deadline_s_ = 0;
  int stats_generation_ = 0;
  uint16_t port_ = 0;
  long pid_ = 0;
  bool done_ = false;
  DeadManSwitch switch_;
};

}  // namespace rpclab::harness
