#include "netem/load/server_load.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "process/command_runner.h"
#include "netem/load/schedstat.h"

namespace rpclab::netem {
namespace {

using Clock = std::chrono::steady_clock;

// A hog is a forked copy of us spinning forever: no exec, no I/O, nothing
// but CPU. It dies with its parent, is pinned before it starts to spin,
// and says so with one byte on `ready_fd`: once sched_setaffinity has
// returned, it runs on its CPU.
pid_t start_hog(const std::vector<int>& cpus, int ready_fd) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw process::CommandError("fork for a load hog failed");
  if (pid > 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) _exit(0);
  if (!cpus.empty()) ::sched_setaffinity(0, sizeof set, &set);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  char ready = 1;
  if (::write(ready_fd, &ready, 1) != 1) _exit(1);
  ::close(ready_fd);
  for (volatile unsigned long spin = 0;; spin = spin + 1) {
  }
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (int c : cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

uint64_t timeslices_of(pid_t pid) {
  auto threads = read_thread_schedstats(pid);
  return threads.count(pid) ? threads[pid].timeslices : 0;
}

}  // namespace

ServerLoad::ServerLoad(int hogs, const std::vector<int>& cpus, process::CommandLog& log, std::chrono::milliseconds settle_limit) {
  if (hogs <= 0) return;
  // The equivalent by hand, for the commands log.
  std::string pin = cpus.empty() ? "" : "taskset -c " + cpu_list(cpus) + " ";
  log.comment("server load: " + std::to_string(hogs) + " hogs, each like: " + pin + "sh -c 'while :; do :; done' &");
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) throw process::CommandError("pipe for the load hogs failed");
  try {
    for (int i = 0; i < hogs; ++i) pids_.push_back(start_hog(cpus, ready[1]));
    ::close(ready[1]);
    wait_until_runnable(ready[0], settle_limit);
  } catch (...) {
    ::close(ready[0]);
    stop();
    throw;
  }
  ::close(ready[0]);
}

// Condition, not delay: every hog has said it is on its CPU, and each has
// been given the CPU again since (its timeslice count grew), so the run
// queue has gone round all of them. With 20 hogs that takes tens of ms.
void ServerLoad::wait_until_runnable(int ready_fd, std::chrono::milliseconds limit) {
  auto start = Clock::now(), deadline = start + limit;
  size_t said = 0;
  while (said < pids_.size() && Clock::now() < deadline) {
    pollfd p{ready_fd, POLLIN, 0};
    int left_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    if (::poll(&p, 1, std::max(left_ms, 1)) <= 0) continue;
    char buf[64];
    ssize_t n = ::read(ready_fd, buf, sizeof buf);
    if (n <= 0) break;  // every hog has closed its end: one died before saying so
    said += static_cast<size_t>(n);
  }
  std::vector<uint64_t> at_join;
  for (pid_t pid : pids_) at_join.push_back(timeslices_of(pid));
  size_t went_round = 0;
  while (said == pids_.size() && went_round < pids_.size()) {
    if (timeslices_of(pids_[went_round]) > at_join[went_round]) {
      ++went_round;
      continue;
    }
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  settle_s_ = std::chrono::duration<double>(Clock::now() - start).count();
  settled_ = went_round == pids_.size();
}

ServerLoad::~ServerLoad() { stop(); }

void ServerLoad::stop() {
  for (pid_t pid : pids_) ::kill(pid, SIGKILL);
  for (pid_t pid : pids_) ::waitpid(pid, nullptr, 0);
  pids_.clear();
}

}  // namespace rpclab::netem
