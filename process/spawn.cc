#include "process/spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "process/command_error.h"

extern char** environ;

namespace rpclab::process::detail {

namespace {

// Everything the child needs, built before vfork: the child may only make
// system calls.
struct Prepared {
  std::vector<std::string> env_strings;
  std::vector<char*> argv, envp;
  cpu_set_t cpus;
};

void prepare(const SpawnSpec& spec, Prepared& p) {
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& extra : spec.env)
      if (extra.compare(0, name.size() + 1, name + "=") == 0) overridden = true;
    if (!overridden) p.env_strings.push_back(entry);
  }
  p.env_strings.insert(p.env_strings.end(), spec.env.begin(), spec.env.end());
  for (const auto& a : spec.argv) p.argv.push_back(const_cast<char*>(a.c_str()));
  p.argv.push_back(nullptr);
  for (auto& e : p.env_strings) p.envp.push_back(e.data());
  p.envp.push_back(nullptr);
  CPU_ZERO(&p.cpus);
  for (int c : spec.cpus) CPU_SET(c, &p.cpus);
}

[[noreturn]] void child_fail(int report_fd, const char* step) {
  int err = errno;
  (void)!::write(report_fd, &err, sizeof err);
  (void)!::write(report_fd, step, std::strlen(step));
  _exit(127);
}

// Runs in the vfork child, on the parent's memory while the parent waits:
// only system calls, no allocation, nothing a signal handler of the
// parent's could run into (the parent blocked every signal before vfork).
[[noreturn]] void run_child(const SpawnSpec& spec, const Prepared& p, pid_t parent, int report_fd) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(report_fd, "prctl");
  if (::getppid() != parent) _exit(127);  // the parent died before prctl took effect
  if (spec.own_group && ::setpgid(0, 0) != 0) child_fail(report_fd, "setpgid");
  if (!spec.cpus.empty() && ::sched_setaffinity(0, sizeof p.cpus, &p.cpus) != 0)
    child_fail(report_fd, "sched_setaffinity");
  int fds[3] = {spec.stdin_fd, spec.stdout_fd, spec.stderr_fd};
  for (int i = 0; i < 3; ++i)
    if (fds[i] >= 0 && ::dup2(fds[i], i) < 0) child_fail(report_fd, "dup2");
  // Default dispositions before unblocking: a handler of the parent's must
  // not run here, and ignored signals would survive exec.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);  // SIGKILL, SIGSTOP: refused, harmless
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // a parent's SignalWatcher blocks signals
  ::execve(p.argv[0], p.argv.data(), p.envp.data());
  child_fail(report_fd, "exec");
}

}  // namespace

pid_t spawn(const SpawnSpec& spec) {
  if (spec.argv.empty()) throw CommandError("spawn: empty command");
  Prepared p;
  prepare(spec, p);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw CommandError(std::string("pipe: ") + std::strerror(errno));
  pid_t parent = ::getpid();
  // vfork, not fork: fork copies the harness's page tables and leaves every
  // page it writes afterwards to fault (about 3 ms a spawn at the harness's
  // 33 MB, ~33 ms at 250 MB; a speed trial spawns one to four clients);
  // vfork lends the child the parent's memory until exec. Every signal is
  // blocked across it, so no handler of the parent's runs in the child.
  sigset_t all, before;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  pid_t pid = ::vfork();
  if (pid == 0) run_child(spec, p, parent, report[1]);
  int vfork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    ::close(report[0]);
    ::close(report[1]);
    throw CommandError(std::string("vfork: ") + std::strerror(vfork_errno));
  }
  if (spec.own_group) ::setpgid(pid, pid);  // also from here, so signal() works at once
  ::close(report[1]);
  char buf[128] = {};
  ssize_t n = ::read(report[0], buf, sizeof buf - 1);
  ::close(report[0]);
  if (n <= 0) return pid;  // exec succeeded (the pipe closed on exec)
  int err = 0;
  std::memcpy(&err, buf, sizeof err);
  ::waitpid(pid, nullptr, 0);
  throw CommandError("cannot start " + spec.argv[0] + " (" + std::string(buf + sizeof err) + "): " +
                     std::strerror(err));
}

int open_for_child(const std::string& path, bool for_writing) {
  if (path.empty()) return -1;
  int flags = for_writing ? (O_WRONLY | O_CREAT | O_TRUNC) : O_RDONLY;
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) throw CommandError("cannot open " + path + ": " + std::strerror(errno));
  return fd;
}

}  // namespace rpclab::process::detail
