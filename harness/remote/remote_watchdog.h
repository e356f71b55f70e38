// The dead-man switch's two ways of waiting on the remote, one row each:
// a systemd timer (`systemd-run --on-active`) where the remote runs
// systemd as PID 1 and we are root there, so the host's own service
// manager owns the deadline and `systemctl list-timers` shows it; else a
// detached `setsid sh` that sleeps. Both run the trial's cleanup.sh at the
// deadline and are cancelled on a normal end; both are logged.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process/remote_host.h"

namespace rpclab::harness {

enum class WatchdogKind { kSystemdRun, kSetsid };

struct WatchdogChoice {
  WatchdogKind kind = WatchdogKind::kSetsid;
  std::string reason;
};

// The shell line that asks the remote what it has; its output goes to
// choose_watchdog.
std::string watchdog_probe_line();
// systemd-run where /run/systemd/system exists (systemd is PID 1, as
// sd_booted() tests), systemd-run is on the PATH, the login is root (a
// system timer needs root; sudo rights are asked for nft alone) and in
// PID 1's network namespace (where systemd's units run).
WatchdogChoice choose_watchdog(const std::string& probe_output);

// One trial's switch: `dir` holds cleanup.sh, `unit` names the systemd units.
struct WatchdogWay {
  WatchdogKind kind;
  const char* name;  // as the records and commands.log say it
  // A shell line that arms it (`deadline_s` from now) and prints nothing.
  std::string (*arm)(const std::string& dir, const std::string& unit, int deadline_s);
  // A shell line that cancels it; harmless if it has fired or never started.
  std::string (*cancel)(const std::string& dir, const std::string& unit);
};
const WatchdogWay& watchdog_way(WatchdogKind kind);

// A systemd unit name for `text` (a run id and a trial): other characters become '_'.
std::string watchdog_unit(const std::string& text);
// The command vectors of the systemd row, for tests and the row alike.
std::vector<std::string> systemd_run_argv(const std::string& dir, const std::string& unit, int deadline_s);
std::vector<std::string> systemd_cancel_argv(const std::string& unit);

// One trial folder's switch on a remote host: arm() writes its cleanup.sh
// and lease and arms the chosen watchdog (again on a re-arm, under a new
// unit name); cancel() on a normal end. Logged in commands.log.
class DeadManSwitch {
 public:
  DeadManSwitch(process::RemoteHost& host, WatchdogChoice choice, std::string run_id, std::string dir)
      : host_(host), choice_(std::move(choice)), run_id_(std::move(run_id)), dir_(std::move(dir)) {}
  // `cleanup`: the body of cleanup.sh. Throws process::RemoteError.
  void arm(const std::string& cleanup, int deadline_s);
  void cancel();
  nlohmann::json to_json() const;  // which watchdog, why, its unit

 private:
  process::RemoteHost& host_;
  WatchdogChoice choice_;
  std::string run_id_, dir_, unit_;
  int arms_ = 0;
};

}  // namespace rpclab::harness
