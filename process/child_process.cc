#include "process/child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "process/command_runner.h"
#include "process/spawn.h"

namespace rpclab::process {

namespace {

// Closes the redirect files once the child has its copies.
struct FdCloser {
  int fds[3] = {-1, -1, -1};
  ~FdCloser() {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  }
};

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const SpawnOptions& options, CommandLog& log) {
  if (argv.empty()) throw CommandError("ChildProcess: empty command");
  detail::SpawnSpec spec;
  if (!options.netns.empty()) spec.argv = {tool_path("ip"), "netns", "exec", options.netns};
  spec.argv.insert(spec.argv.end(), argv.begin(), argv.end());
  spec.argv[0] = tool_path(spec.argv[0]);
  spec.env = options.env;
  spec.cpus = options.cpus;
  FdCloser files;
  files.fds[0] = spec.stdin_fd = detail::open_for_child(options.stdin_path, false);
  files.fds[1] = spec.stdout_fd = detail::open_for_child(options.stdout_path, true);
  // One file for both streams shares one open file (one offset), so the
  // lines interleave instead of overwriting each other.
  files.fds[2] = spec.stderr_fd = options.stderr_path == options.stdout_path
                                      ? spec.stdout_fd
                                      : detail::open_for_child(options.stderr_path, true);
  if (files.fds[2] == files.fds[1]) files.fds[2] = -1;

  std::vector<std::string> logged;
  for (const auto& e : options.env) logged.push_back(e);
  if (!options.cpus.empty()) {
    std::string list;
    for (int c : options.cpus) list += (list.empty() ? "" : ",") + std::to_string(c);
    logged.insert(logged.end(), {"taskset", "-c", list});
  }
  logged.insert(logged.end(), spec.argv.begin(), spec.argv.end());
  std::string line = shell_line(logged);
  if (!options.stdin_path.empty()) line += " <" + shell_line({options.stdin_path});
  if (!options.stdout_path.empty()) line += " >" + shell_line({options.stdout_path});
  if (!options.stderr_path.empty())
    line += options.stderr_path == options.stdout_path ? " 2>&1" : " 2>" + shell_line({options.stderr_path});
  log.shell(line + " &");
  pid_ = detail::spawn(spec);
}

ChildProcess::~ChildProcess() {
  if (pid_ <= 0 || status_) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

void ChildProcess::signal(int sig) {
  if (pid_ <= 0 || status_) return;
  if (::kill(-pid_, sig) != 0) ::kill(pid_, sig);
}

std::optional<int> ChildProcess::poll() {
  if (status_) return status_;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) status_ = status;
  return status_;
}

std::optional<int> ChildProcess::wait_for(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  // Polling keeps this free of SIGCHLD handlers, which the harness may own.
  auto step = std::chrono::milliseconds(1);
  while (!poll()) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(step);
    if (step < std::chrono::milliseconds(20)) step *= 2;
  }
  return status_;
}

bool ChildProcess::running() { return !poll().has_value(); }

int ChildProcess::stop(std::chrono::milliseconds grace) {
  if (poll()) return *status_;
  signal(SIGTERM);
  if (wait_for(grace)) {
    ::kill(-pid_, SIGKILL);  // anything the leader left behind in its group
    return *status_;
  }
  signal(SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  status_ = status;
  return status;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return std::string("killed by SIG") + (name ? name : std::to_string(WTERMSIG(status)).c_str());
  }
  return "status " + std::to_string(status);
}

}  // namespace rpclab::process
