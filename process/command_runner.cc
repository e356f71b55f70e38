#include "process/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "process/spawn.h"

namespace rpclab::process {

namespace {

bool is_executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// Reads both pipes to the end without letting either fill up and block the child.
void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open_count = 2;
  char buf[8192];
  while (open_count > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, n);
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
}

}  // namespace

std::string tool_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  // The system directories come first for the network tools: in a UML guest
  // whose root is the host's /, busybox's applets must not answer for them.
  static const char* kSystemDirs[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin"};
  if (name == "ip" || name == "tc" || name == "nft") {
    for (const char* dir : kSystemDirs)
      if (is_executable(std::string(dir) + "/" + name)) return std::string(dir) + "/" + name;
  }
  const char* path_env = std::getenv("PATH");
  std::string path = std::string(path_env ? path_env : "") + ":/usr/sbin:/sbin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (!dir.empty() && is_executable(dir + "/" + name)) return dir + "/" + name;
    start = end + 1;
  }
  return name;
}

CommandResult run(const std::vector<std::string>& argv, CommandLog& log, const std::string& netns) {
  std::vector<std::string> full;
  if (!netns.empty()) full = {tool_path("ip"), "netns", "exec", netns};
  full.insert(full.end(), argv.begin(), argv.end());
  full[0] = tool_path(full[0]);
  log.command(full);

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw CommandError(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw CommandError(std::string("pipe: ") + std::strerror(errno));
  }
  detail::SpawnSpec spec;
  spec.argv = full;
  spec.stdout_fd = out_pipe[1];
  spec.stderr_fd = err_pipe[1];
  spec.own_group = false;
  pid_t pid = -1;
  try {
    pid = detail::spawn(spec);
  } catch (...) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw;
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  CommandResult result;
  drain(out_pipe[0], err_pipe[0], result.out, result.err);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

CommandResult run_checked(const std::vector<std::string>& argv, CommandLog& log, const std::string& netns) {
  CommandResult r = run(argv, log, netns);
  if (r.exit_code != 0) {
    std::string where = netns.empty() ? "" : " (in netns " + netns + ")";
    std::string err = r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    throw CommandError("`" + shell_line(argv) + "`" + where + " failed with exit " +
                       std::to_string(r.exit_code) + (err.empty() ? "" : ": " + err));
  }
  return r;
}

}  // namespace rpclab::process
