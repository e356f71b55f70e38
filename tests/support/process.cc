#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "support/wait.h"

namespace rpclab::test {
namespace {

using Clock = std::chrono::steady_clock;

int code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Forks and execs argv with stdin from /dev/null and stdout/stderr on the
// given descriptors. Only async-signal-safe calls happen between fork and
// exec, since gRPC may have started threads in the test process.
pid_t spawn(const std::vector<std::string>& argv, int out_fd, int err_fd) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    // The child starts as a shell would start it: no signal blocked (else
    // SIGTERM would never reach it) and none ignored (an ignored signal
    // survives exec; the test program ignores SIGPIPE, and a server that
    // inherited that would hide the SIGPIPE it must survive on its own).
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

// Reads both pipes until each reaches end of file or the deadline passes.
bool drain(int out_fd, int err_fd, ProcessResult* result, Clock::time_point deadline) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&result->out, &result->err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    if (::poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !fds[i].revents) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  return true;
}

}  // namespace

std::string bin(const std::string& name) { return std::string(RPCLAB_BIN_DIR) + "/" + name; }

std::string describe_exit(int code) {
  if (code > 128) return "killed by signal " + std::to_string(code - 128);
  return "exit " + std::to_string(code);
}

ProcessResult run_program(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  pid_t pid = spawn(argv, out[1], err[1]);
  ::close(out[1]);
  ::close(err[1]);
  ProcessResult result;
  result.timed_out = !drain(out[0], err[0], &result, Clock::now() + timeout);
  ::close(out[0]);
  ::close(err[0]);
  if (result.timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = code_of(status);
  return result;
}

Child::Child(const std::vector<std::string>& argv, const std::string& log_path) {
  int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log < 0) throw std::runtime_error("cannot create " + log_path + ": " + std::strerror(errno));
  pid_ = spawn(argv, log, log);
  ::close(log);
}

Child::~Child() {
  if (!exit_code()) stop(SIGKILL);
}

std::optional<int> Child::exit_code() {
  if (code_) return code_;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) code_ = code_of(status);
  return code_;
}

int Child::stop(int sig, std::chrono::milliseconds grace) {
  if (exit_code()) return *code_;
  ::kill(pid_, sig);
  wait_until([this] { return exit_code().has_value(); }, grace, std::chrono::milliseconds(5));
  if (!code_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    code_ = code_of(status);
  }
  return *code_;
}

}  // namespace rpclab::test
