#include "process/remote_host.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "process/spawn.h"

namespace rpclab::process {
namespace {

bool contains(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

// The value ssh -G prints for `key` (lower case), or "".
std::string ssh_g_value(const std::string& ssh_g, const std::string& key) {
  size_t at = 0;
  while ((at = ssh_g.find(key + " ", at)) != std::string::npos) {
    if (at == 0 || ssh_g[at - 1] == '\n') {
      size_t end = ssh_g.find('\n', at);
      return ssh_g.substr(at + key.size() + 1, end == std::string::npos ? std::string::npos : end - at - key.size() - 1);
    }
    ++at;
  }
  return "";
}

// Whether a master connection still listens on `path`.
bool socket_answers(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) return false;
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, path.size());
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// Control directories of ours that a killed run left: no master answers in
// them any more (ControlPersist ends it), so they go. A young one is left
// alone: another rpclab starting now has made its directory but not yet
// its master (two runs at once would otherwise cut each other off).
constexpr time_t kControlDirMinAge_s = 300;

void remove_dead_control_dirs(const std::filesystem::path& tmp) {
  std::error_code ec;
  time_t now = ::time(nullptr);
  for (const auto& dir : std::filesystem::directory_iterator(tmp, ec)) {
    struct stat st{};
    if (dir.path().filename().string().rfind("rpclab-ssh-", 0) != 0 || ::lstat(dir.path().c_str(), &st) != 0 ||
        !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || now - st.st_mtime < kControlDirMinAge_s)
      continue;
    bool live = false;
    for (const auto& f : std::filesystem::directory_iterator(dir.path(), ec)) live = live || socket_answers(f.path());
    if (!live) std::filesystem::remove_all(dir.path(), ec);
  }
}

}  // namespace

std::string SshTarget::text() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return (user.empty() ? "" : user + "@") + h + (port ? ":" + std::to_string(port) : "");
}

std::optional<SshTarget> parse_ssh_target(const std::string& text) {
  SshTarget t;
  std::string rest = text;
  if (size_t at = rest.find('@'); at != std::string::npos) {
    t.user = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (t.user.empty()) return std::nullopt;
  }
  std::string port;
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos) return std::nullopt;
    t.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return std::nullopt;
      port = rest.substr(close + 2);
    }
  } else if (size_t colon = rest.find(':'); colon != std::string::npos) {
    t.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    if (port.find(':') != std::string::npos) return std::nullopt;  // a bare IPv6 address: needs brackets
  } else {
    t.host = rest;
  }
  if (t.host.empty() || t.host.find_first_of(" \t/") != std::string::npos || t.host.front() == '-') return std::nullopt;
  if (!port.empty() || rest.back() == ':') {
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    t.port = std::stoi(port);
    if (t.port < 1 || t.port > 65535) return std::nullopt;
  }
  return t;
}

std::string explain_ssh_failure(const SshTarget& target, const std::string& err) {
  std::string who = target.text();
  std::string port = target.port ? std::to_string(target.port) : "22";
  if (contains(err, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
    return fmt::format("the host key of {} has changed since it was added to known_hosts: find out why before "
                       "trusting it (then `ssh-keygen -R {}` and connect once by hand with ssh)", who, target.host);
  if (contains(err, "Host key verification failed") || (contains(err, "No ") && contains(err, "host key is known")))
    return fmt::format("the host key of {} is not in known_hosts, and rpclab does not accept a key unseen: check "
                       "its fingerprint and add it (connect once by hand with `ssh -p {} {}`, or `ssh-keyscan -p {} "
                       "{} >> ~/.ssh/known_hosts` after checking), or name a known_hosts with --ssh-config",
                       who, port, target.host, port, target.host);
  if (contains(err, "Permission denied"))
    return fmt::format("{} refused this key ({}): install the public key there (`ssh-copy-id -p {} {}`) or name "
                       "the key in an ssh config given with --ssh-config (IdentityFile)", who, last_line(err),
                       port, who);
  if (contains(err, "Could not resolve hostname"))
    return fmt::format("cannot resolve {}: check the name ({})", target.host, last_line(err));
  if (contains(err, "Connection refused") || contains(err, "timed out") || contains(err, "No route to host") ||
      contains(err, "Network is unreachable"))
    return fmt::format("cannot reach {} over ssh ({}): check that the host is up, that sshd listens on port {} and "
                       "that the management network routes to it", who, last_line(err), port);
  return fmt::format("ssh to {} failed: {}", who, err.empty() ? "(ssh printed nothing)" : last_line(err));
}

RemoteHost::RemoteHost(SshTarget target, std::string ssh_config, CommandLog& log)
    : target_(std::move(target)), config_(std::move(ssh_config)), log_(log) {
  // The control socket's path must stay short (a unix socket holds ~100
  // bytes) and private: anyone who can open it runs commands as us.
  remove_dead_control_dirs(std::filesystem::temp_directory_path());
  std::string tmpl = (std::filesystem::temp_directory_path() / "rpclab-ssh-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw RemoteError("cannot make a private directory for the ssh control socket in " +
                                                 std::filesystem::temp_directory_path().string());
  control_dir_ = tmpl;  // mkdtemp makes it 0700
}

RemoteHost::~RemoteHost() {
  if (connected_) {
    std::vector<std::string> argv = {"ssh"};
    for (const std::string& o : options()) argv.push_back(o);
    argv.insert(argv.end(), {"-O", "exit", target_.host});
    try {
      process::run(argv, log_);
    } catch (const std::exception&) {
      // the master has gone already; nothing to close
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(control_dir_, ec);
}

std::vector<std::string> RemoteHost::options() const {
  std::vector<std::string> o;
  if (!config_.empty()) o.insert(o.end(), {"-F", config_});
  o.insert(o.end(), {"-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=5",
                     "-o", "ControlMaster=auto", "-o", "ControlPath=" + control_dir_ + "/%C",
                     "-o", "ControlPersist=60"});
  if (target_.port) o.insert(o.end(), {"-o", "Port=" + std::to_string(target_.port)});
  if (!target_.user.empty()) o.insert(o.end(), {"-o", "User=" + target_.user});
  return o;
}

void RemoteHost::connect() {
  // What ssh will do with an unknown host key, from the user's own config:
  // accept-new would trust a key nobody checked, so it is turned into "yes".
  std::vector<std::string> probe = {"ssh"};
  if (!config_.empty()) probe.insert(probe.end(), {"-F", config_});
  probe.insert(probe.end(), {"-G", target_.host});
  CommandResult g = process::run(probe, log_);
  if (g.exit_code != 0) throw RemoteError(fmt::format("ssh cannot read its configuration for {}: {}", target_.text(),
                                                      last_line(g.err)));
  std::string strict = ssh_g_value(g.out, "stricthostkeychecking");
  if (strict == "accept-new") {
    config_overrides_.insert(config_overrides_.end(), {"-o", "StrictHostKeyChecking=yes"});
    log_.comment("the ssh config says StrictHostKeyChecking accept-new; rpclab checks keys: yes");
  } else if (strict == "false" || strict == "no" || strict == "off") {
    log_.comment("the ssh config turns host key checking off (StrictHostKeyChecking no): as the user asked");
    std::fprintf(stderr, "rpclab: warning: your ssh config turns host key checking off for %s\n", target_.text().c_str());
  }
  CommandResult r = run("true");
  if (r.exit_code != 0) throw RemoteError(explain_ssh_failure(target_, r.err));
}

CommandResult RemoteHost::run(const std::string& command) {
  std::vector<std::string> argv = {"ssh"};
  for (const std::string& o : options()) argv.push_back(o);
  argv.insert(argv.end(), config_overrides_.begin(), config_overrides_.end());
  argv.insert(argv.end(), {target_.host, "--", command});
  CommandResult r = process::run(argv, log_);
  if (r.exit_code == 255) {
    if (!connected_) return r;  // connect() explains it
    throw RemoteError(explain_ssh_failure(target_, r.err));
  }
  connected_ = true;
  return r;
}

CommandResult RemoteHost::run_checked(const std::string& command) {
  CommandResult r = run(command);
  if (r.exit_code != 0)
    throw RemoteError(fmt::format("on {}: `{}` failed with exit {}: {}", target_.text(), command, r.exit_code,
                                  last_line(r.err.empty() ? r.out : r.err)));
  return r;
}

double RemoteHost::clock_offset(int rounds, double* rtt) {
  std::vector<std::string> argv = {tool_path("ssh")};
  for (const std::string& o : options()) argv.push_back(o);
  argv.insert(argv.end(), config_overrides_.begin(), config_overrides_.end());
  argv.insert(argv.end(), {target_.host, "--", "while read line; do date +%s.%N; done"});
  log_.command(argv);
  int to[2], from[2];
  if (::pipe2(to, O_CLOEXEC) != 0) throw RemoteError("pipe failed");
  if (::pipe2(from, O_CLOEXEC) != 0) {
    ::close(to[0]);
    ::close(to[1]);
    throw RemoteError("pipe failed");
  }
  detail::SpawnSpec spec;
  spec.argv = argv;
  spec.stdin_fd = to[0];
  spec.stdout_fd = from[1];
  spec.own_group = false;
  pid_t pid = detail::spawn(spec);
  ::close(to[0]);
  ::close(from[1]);
  auto now = [] { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); };
  double best = 1e9, offset = 0;
  bool ok = true;
  for (int i = 0; i < rounds && ok; ++i) {
    double t0 = now();
    ok = ::write(to[1], "\n", 1) == 1;
    std::string line;
    char c;
    while (ok && (ok = ::read(from[0], &c, 1) == 1) && c != '\n') line += c;
    double t1 = now();
    if (!ok || line.empty()) break;
    if (t1 - t0 < best) {
      best = t1 - t0;
      offset = std::stod(line) - (t0 + t1) / 2;
    }
  }
  ::close(to[1]);
  ::close(from[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (best > 1e8) throw RemoteError("cannot read the clock of " + target_.text() + " over ssh");
  *rtt = best;
  return offset;
}

std::string RemoteHost::scp_host() const {
  return target_.host.find(':') != std::string::npos ? "[" + target_.host + "]" : target_.host;
}

void RemoteHost::copy_from(const std::vector<std::string>& remote_paths, const std::string& local_dir) {
  std::vector<std::string> argv = {"scp", "-q"};
  for (const std::string& o : options()) argv.push_back(o);
  argv.insert(argv.end(), config_overrides_.begin(), config_overrides_.end());
  for (const std::string& p : remote_paths) argv.push_back(scp_host() + ":" + p);
  argv.push_back(local_dir + "/");
  CommandResult r = process::run(argv, log_);
  if (r.exit_code != 0)
    throw RemoteError(fmt::format("cannot copy from {}: {}", target_.text(), last_line(r.err)));
}

void RemoteHost::copy_to(const std::vector<std::string>& local_paths, const std::string& remote_dir) {
  std::vector<std::string> argv = {"scp", "-q", "-p", "-r"};  // -r: a folder is copied whole
  for (const std::string& o : options()) argv.push_back(o);
  argv.insert(argv.end(), config_overrides_.begin(), config_overrides_.end());
  argv.insert(argv.end(), local_paths.begin(), local_paths.end());
  argv.push_back(scp_host() + ":" + remote_dir + "/");
  CommandResult r = process::run(argv, log_);
  if (r.exit_code != 0) throw RemoteError(fmt::format("cannot copy to {}: {}", target_.text(), last_line(r.err)));
}

}  // namespace rpclab::process
