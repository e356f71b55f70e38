#include "netem/server_load.h"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "netem/command_runner.h"

namespace rpclab::netem {

namespace {

// A hog is a forked copy of us spinning forever: no exec, no I/O, nothing
// but CPU. It dies with its parent and is pinned before it starts to spin.
pid_t start_hog(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw CommandError("fork for a load hog failed");
  if (pid > 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) _exit(0);
  if (!cpus.empty()) ::sched_setaffinity(0, sizeof set, &set);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (volatile unsigned long spin = 0;; spin = spin + 1) {
  }
}

int procs_running() {
  std::ifstream in("/proc/stat");
  std::string key;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    int value = 0;
    if (fields >> key >> value && key == "procs_running") return value;
  }
  return 0;
}

double loadavg_1m() {
  std::ifstream in("/proc/loadavg");
  double v = 0;
  in >> v;
  return v;
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (int c : cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s;
}

}  // namespace

ServerLoad::ServerLoad(int hogs, const std::vector<int>& cpus, CommandLog& log) : hogs_(hogs) {
  if (hogs > 0) {
    // The equivalent by hand, for the commands log.
    std::string pin = cpus.empty() ? "" : "taskset -c " + cpu_list(cpus) + " ";
    log.comment("server load: " + std::to_string(hogs) + " hogs, each like: " + pin +
                "sh -c 'while :; do :; done' &");
  }
  try {
    for (int i = 0; i < hogs; ++i) pids_.push_back(start_hog(cpus));
  } catch (...) {
    finish();
    throw;
  }
  sampler_ = std::thread([this] {
    while (sampling_.load()) {
      run_queue_sum_ += procs_running();
      ++samples_;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

ServerLoad::~ServerLoad() { finish(); }

MeasuredLoad ServerLoad::finish() {
  MeasuredLoad m;
  m.hogs = hogs_;
  m.loadavg_1m = loadavg_1m();  // read while the hogs still run: the cell's end
  sampling_ = false;
  if (sampler_.joinable()) sampler_.join();
  for (pid_t pid : pids_) ::kill(pid, SIGKILL);
  for (pid_t pid : pids_) ::waitpid(pid, nullptr, 0);
  pids_.clear();
  m.samples = samples_;
  m.run_queue_mean = samples_ > 0 ? run_queue_sum_ / samples_ : 0;
  return m;
}

}  // namespace rpclab::netem
