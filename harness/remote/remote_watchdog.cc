#include "harness/remote/remote_watchdog.h"

#include <cctype>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "process/command_log.h"

namespace rpclab::harness {
namespace {

using process::shell_line;

std::string q(const std::string& word) { return shell_line({word}); }

// What either way runs at the deadline: a line in watchdog.log, then cleanup.sh.
std::string fire(const std::string& dir) {
  return fmt::format("echo \"$(date +%s.%N) deadline: cleanup.sh\" >> {0}/watchdog.log; sh {0}/cleanup.sh", q(dir));
}

std::string arm_systemd(const std::string& dir, const std::string& unit, int deadline_s) {
  return shell_line(systemd_run_argv(dir, unit, deadline_s)) + " >/dev/null && echo " + q(unit) + " > " +
         q(dir + "/watchdog.unit");
}

std::string cancel_systemd(const std::string&, const std::string& unit) {
  return shell_line(systemd_cancel_argv(unit)) + " 2>/dev/null; true";
}

// setsid: the watchdog leads its own process group and session, so it
// outlives the ssh session and one kill of the group cancels it. The
// line returns once the watchdog has written its pid.
std::string arm_setsid(const std::string& dir, const std::string&, int deadline_s) {
  std::string body = fmt::format("echo $$ > {0}/watchdog.pid; sleep {1}; {2}", q(dir), deadline_s, fire(dir));
  return fmt::format("rm -f {0}/watchdog.pid; setsid sh -c {1} </dev/null >/dev/null 2>&1 & "
                     "while [ ! -s {0}/watchdog.pid ]; do sleep 0.01; done", q(dir), q(body));
}

std::string cancel_setsid(const std::string& dir, const std::string&) {
  return fmt::format("kill -TERM -- -$(cat {0}/watchdog.pid) 2>/dev/null; true", q(dir));
}

const WatchdogWay kWays[] = {
    {WatchdogKind::kSystemdRun, "systemd-run timer", arm_systemd, cancel_systemd},
    {WatchdogKind::kSetsid, "setsid sh: sleep then cleanup.sh", arm_setsid, cancel_setsid},
};

}  // namespace

std::string watchdog_probe_line() {
  return "[ -d /run/systemd/system ] && echo systemd-pid1; command -v systemd-run >/dev/null && echo systemd-run; "
         "[ \"$(id -u)\" = 0 ] && echo root; "
         "[ \"$(readlink /proc/self/ns/net)\" = \"$(readlink /proc/1/ns/net 2>/dev/null)\" ] && echo pid1-netns; true";
}

WatchdogChoice choose_watchdog(const std::string& probe_output) {
  std::set<std::string> said;
  std::istringstream lines(probe_output);
  for (std::string line; std::getline(lines, line);) said.insert(line);
  if (!said.count("systemd-pid1")) return {WatchdogKind::kSetsid, "systemd is not running there (no /run/systemd/system)"};
  if (!said.count("systemd-run")) return {WatchdogKind::kSetsid, "systemd runs there but systemd-run is not on the PATH"};
  if (!said.count("root")) return {WatchdogKind::kSetsid, "not root there: a system timer needs root"};
  // systemd's units run in PID 1's network namespace: one made from a
  // login in another (a container's sshd, this test suite's hosts) would
  // remove the faults from the wrong one.
  if (!said.count("pid1-netns"))
    return {WatchdogKind::kSetsid, "the ssh login is in another network namespace than systemd's units"};
  return {WatchdogKind::kSystemdRun, "systemd runs there (/run/systemd/system), as root: a transient timer"};
}

const WatchdogWay& watchdog_way(WatchdogKind kind) {
  for (const WatchdogWay& w : kWays)
    if (w.kind == kind) return w;
  return kWays[1];
}

std::string watchdog_unit(const std::string& text) {
  std::string unit = "rpclab-" + text;
  for (char& c : unit)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return unit;
}

// --collect: the units go even if cleanup.sh failed, so a rerun's unit
// name is free; AccuracySec: systemd's default 1 min slack would late the deadline.
std::vector<std::string> systemd_run_argv(const std::string& dir, const std::string& unit, int deadline_s) {
  return {"systemd-run", "--quiet", "--collect", "--unit=" + unit, fmt::format("--on-active={}s", deadline_s),
          "--timer-property=AccuracySec=100ms", "/bin/sh", "-c", fire(dir)};
}

std::vector<std::string> systemd_cancel_argv(const std::string& unit) {
  return {"systemctl", "stop", unit + ".timer"};
}

void DeadManSwitch::arm(const std::string& cleanup, int deadline_s) {
  const WatchdogWay& way = watchdog_way(choice_.kind);
  unit_ = watchdog_unit(fmt::format("{}-{}-{}", run_id_, dir_.substr(dir_.rfind('/') + 1), ++arms_));
  host_.run_checked(fmt::format("set -e; mkdir -p {0}; printf %s {1} > {0}/cleanup.sh; "
                                "echo $(( $(date +%s) + {2} )) > {0}/lease; {3}",
                                q(dir_), q(cleanup), deadline_s, way.arm(dir_, unit_, deadline_s)));
  host_.log().comment(fmt::format("dead-man switch on {}: {} ({}) runs {}/cleanup.sh in {} s unless cancelled",
                                  host_.target().text(), way.name, unit_, dir_, deadline_s));
}

void DeadManSwitch::cancel() {
  const WatchdogWay& way = watchdog_way(choice_.kind);
  host_.run_checked(way.cancel(dir_, unit_));
  host_.log().comment(fmt::format("dead-man switch cancelled ({}): the trial ended normally", way.name));
}

nlohmann::json DeadManSwitch::to_json() const {
  return {{"watchdog", watchdog_way(choice_.kind).name}, {"watchdog_reason", choice_.reason},
          {"watchdog_unit", choice_.kind == WatchdogKind::kSystemdRun ? nlohmann::json(unit_) : nlohmann::json(nullptr)}};
}

}  // namespace rpclab::harness
