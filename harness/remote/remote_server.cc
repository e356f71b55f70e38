#include "harness/remote/remote_server.h"

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "harness/run/cell_failure.h"
#include "harness/remote/remote_watchdog.h"
#include "server/server_stats.h"

namespace rpclab::harness {
namespace {

using namespace std::chrono_literals;
using process::shell_line;

constexpr auto kReadyTimeout = 20s;
constexpr auto kStopGrace = 10s;

std::string q(const std::string& word) { return shell_line({word}); }

// A shell test that `pid` runs: not gone and not a zombie (an orphaned
// server waits for a PID 1 that may never reap it, in a container).
std::string alive(long pid) { return fmt::format("grep -qsE '^State:\\s+[^Z]' /proc/{}/status", pid); }

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

RemoteServer::RemoteServer(const CellConfig& cell, RemoteSession& session, const std::string& dir_name,
                           int deadline_s, const std::atomic<bool>* stop, const std::string& fault_removal)
    : session_(session), host_(session.host()), dir_(session.run_dir() + "/" + dir_name),
      fault_removal_(fault_removal), deadline_s_(deadline_s),
      switch_(session.host(), session.watchdog(), session.run_id(), dir_) {
  try {
    start_watchdog(deadline_s);
    start_server(cell, stop);
  } catch (...) {
    abandon();  // the destructor of a half-made object does not run
    throw;
  }
}

// cleanup.sh kills the server only if the pid is still ours (its command
// line names this trial's folder), so a recycled pid is never hit. The
// watchdog (remote_watchdog.h: a systemd timer or a setsid sh) is armed
// before the server and before any fault.
void RemoteServer::start_watchdog(int deadline_s) {
  switch_.arm(fmt::format("p=$(cat {0}/server.pid 2>/dev/null) && grep -qa {0}/ /proc/$p/cmdline 2>/dev/null && "
                          "kill -KILL $p\n{1}\nrm -f {0}/lease\n", q(dir_), fault_removal_.empty() ? ":" : fault_removal_),
              deadline_s);
}

void RemoteServer::start_server(const CellConfig& cell, const std::atomic<bool>* stop) {
  CellFiles files{dir_};
  std::vector<std::string> argv = server_argv(cell, session_.server_addr() + ":0", files, session_.bin_dir());
  pid_ = std::stol(host_.run_checked(fmt::format("cd {0} && {{ {1} </dev/null >{0}/server.log 2>&1 & echo $! > "
                                                 "{0}/server.pid; cat {0}/server.pid; }}",
                                                 q(dir_), shell_line(argv)))
                       .out);
  std::string poll = fmt::format("cat {0}/server.ready 2>/dev/null || {{ {1} || "
                                 "{{ echo DEAD; tail -5 {0}/server.log; }}; }}", q(dir_), alive(pid_));
  auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::string out = host_.run_checked(poll).out;
    if (out.rfind("DEAD", 0) == 0)
      throw CellFailure(fmt::format("server on {} did not start: {}", host_.target().text(), trimmed(out.substr(5))));
    if (!out.empty()) {
      auto ready = nlohmann::json::parse(out, nullptr, false);
      if (!ready.is_discarded() && ready.contains("port")) {
        port_ = ready.at("port").get<uint16_t>();
        return;
      }
    }
    if (stop && stop->load()) throw Interrupted();
    std::this_thread::sleep_for(10ms);  // between ssh round trips to the ready file
  }
  throw CellFailure(fmt::format("server on {} did not report ready within {} s", host_.target().text(),
                                kReadyTimeout.count()));
}

RemoteServer::~RemoteServer() { abandon(); }

void RemoteServer::abandon() noexcept {
  if (done_) return;
  done_ = true;
  try {
    host_.run(fmt::format("sh {0}/cleanup.sh", q(dir_)));
    cancel_watchdog();
    host_.run("rm -rf " + q(dir_));
  } catch (const std::exception& e) {
    host_.log().comment(std::string("remote cleanup failed; the watchdog and the next run will do it: ") + e.what());
  }
}

void RemoteServer::cancel_watchdog() { switch_.cancel(); }

std::string RemoteServer::endpoint() const { return session_.server_addr() + ":" + std::to_string(port_); }

void RemoteServer::keep_for(int deadline_s) {
  cancel_watchdog();
  deadline_s_ = deadline_s;
  start_watchdog(deadline_s);
}

// The signal and the wait for the new generation in one round trip.
std::optional<nlohmann::json> RemoteServer::stats() {
  int want = ++stats_generation_;
  std::string script = fmt::format(
      "kill -USR1 {0} || exit 1; i=0; while [ $i -lt 500 ]; do "
      "g=$(sed -n 's/.*\"generation\":\\([0-9]*\\).*/\\1/p' {1} 2>/dev/null); "
      "[ -n \"$g\" ] && [ \"$g\" -ge {2} ] && exec cat {1}; sleep 0.002; i=$((i+1)); done; exit 1",
      pid_, q(at("server.stats")), want);
  process::CommandResult r = host_.run(script);
  if (r.exit_code != 0) return std::nullopt;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  if (j.contains("generation")) stats_generation_ = static_cast<int>(j.get<ServerStats>().generation);
  return j;
}

void RemoteServer::check_alive() {
  if (host_.run(alive(pid_)).exit_code != 0)
    throw CellFailure(fmt::format("server on {} died mid-run: {}", host_.target().text(),
                                  trimmed(host_.run("tail -5 " + q(at("server.log"))).out)));
}

Ledger RemoteServer::stop_and_read_ledger(const CellFiles& local) {
  // Wait on the server's exit there, not here: one round trip.
  std::string stop = fmt::format(
      "kill -TERM {0}; i=0; while {2} && [ $i -lt {1} ]; do sleep 0.01; i=$((i+1)); done; "
      "{2} && {{ kill -KILL {0}; echo KILLED; }}; true",
      pid_, std::chrono::duration_cast<std::chrono::milliseconds>(kStopGrace).count() / 10, alive(pid_));
  bool killed = host_.run_checked(stop).out.find("KILLED") != std::string::npos;
  std::string present = host_.run_checked(fmt::format(
      "for f in server.log ledger.bin journal.bin server.ready server.stats; do [ -f {0}/$f ] && echo {0}/$f; done; "
      "true", q(dir_))).out;
  std::vector<std::string> files;
  for (size_t at = 0, nl; (nl = present.find('\n', at)) != std::string::npos; at = nl + 1)
    files.push_back(present.substr(at, nl - at));
  if (!files.empty()) host_.copy_from(files, local.dir);
  cancel_watchdog();
  host_.run_checked("rm -rf " + q(dir_));
  done_ = true;
  if (killed)
    throw CellFailure(fmt::format("server on {} did not stop within {} s of SIGTERM", host_.target().text(),
                                  std::chrono::duration_cast<std::chrono::seconds>(kStopGrace).count()));
  return read_server_ledger(local);
}

nlohmann::json RemoteServer::to_json() const {
  nlohmann::json j = {{"remote_dir", dir_}, {"pid", pid_}, {"watchdog_deadline_s", deadline_s_}};
  j.update(switch_.to_json());
  return j;
}

}  // namespace rpclab::harness
