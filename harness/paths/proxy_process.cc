#include "harness/paths/proxy_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "common/atomic_file.h"
#include "harness/run/cell_failure.h"
#include "process/command_runner.h"

namespace rpclab::harness {
namespace {

using namespace std::chrono_literals;

constexpr auto kListenTimeout = 10s;
constexpr auto kStopGrace = 5s;

}  // namespace

namespace {

// /proc/PID/stat's parent and utime+stime+cutime+cstime (clock ticks);
// false when the process is gone. The command (field 2) may hold spaces:
// the fields after it start past its last ')'.
bool read_stat(pid_t pid, pid_t& parent, uint64_t& ticks) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(in, line)) return false;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(line.substr(close + 1));
  std::string state;
  long long ppid = 0;
  fields >> state >> ppid;
  std::string skip;
  for (int i = 0; i < 9; ++i) fields >> skip;  // pgrp .. cmajflt (fields 5-13)
  uint64_t utime = 0, stime = 0;
  long long cutime = 0, cstime = 0;
  if (!(fields >> utime >> stime >> cutime >> cstime)) return false;
  parent = static_cast<pid_t>(ppid);
  ticks = utime + stime + static_cast<uint64_t>(std::max(0LL, cutime) + std::max(0LL, cstime));
  return true;
}

}  // namespace

double process_tree_cpu_us(pid_t root) {
  std::map<pid_t, std::pair<pid_t, uint64_t>> all;  // pid -> (parent, ticks)
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      char* end = nullptr;
      long pid = std::strtol(e->d_name, &end, 10);
      if (pid <= 0 || *end) continue;
      pid_t parent = 0;
      uint64_t ticks = 0;
      if (read_stat(static_cast<pid_t>(pid), parent, ticks)) all[static_cast<pid_t>(pid)] = {parent, ticks};
    }
    ::closedir(d);
  }
  // A process is counted when its chain of parents reaches `root`.
  uint64_t ticks = 0;
  for (const auto& [pid, entry] : all) {
    pid_t at = pid;
    for (int depth = 0; depth < 64 && at > 1 && at != root; ++depth) {
      auto up = all.find(at);
      if (up == all.end()) break;
      at = up->second.first;
    }
    if (at == root) ticks += entry.second;
  }
  return static_cast<double>(ticks) * 1e6 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

bool listening_in_namespace_of(pid_t pid, int port, bool udp) {
  std::ifstream in(fmt::format("/proc/{}/net/{}", pid, udp ? "udp" : "tcp"));
  std::string line;
  std::getline(in, line);  // the header
  std::string want = fmt::format(":{:04X}", port);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    if (local.size() >= want.size() && local.compare(local.size() - want.size(), want.size(), want) == 0 &&
        (udp || state == "0A"))
      return true;
  }
  return false;
}

ListeningProcess::ListeningProcess(std::string what, const std::vector<std::string>& argv,
                                   const process::SpawnOptions& spawn, int port, bool udp, std::string log_path,
                                   process::CommandLog& log)
    : what_(std::move(what)), log_path_(std::move(log_path)) {
  try {
    process_ = std::make_unique<process::ChildProcess>(argv, spawn, log);
  } catch (const std::exception& e) {
    throw CellFailure(fmt::format("{} did not start: {}", what_, e.what()));
  }
  auto deadline = std::chrono::steady_clock::now() + kListenTimeout;
  while (!listening_in_namespace_of(process_->pid(), port, udp)) {
    if (auto status = process_->poll())
      throw CellFailure(fmt::format("{} did not start ({}): {}", what_, process::describe_wait_status(*status),
                                    log_tail(log_path_)));
    if (std::chrono::steady_clock::now() > deadline)
      throw CellFailure(fmt::format("{} did not listen on port {} within {} s: {}", what_, port,
                                    kListenTimeout.count(), log_tail(log_path_)));
    std::this_thread::sleep_for(5ms);
  }
}

ListeningProcess::~ListeningProcess() = default;

void ListeningProcess::check_alive() {
  if (stopped_) return;
  if (auto status = process_->poll())
    throw CellFailure(fmt::format("{} died mid-run ({}): {}", what_, process::describe_wait_status(*status),
                                  log_tail(log_path_)));
}

void ListeningProcess::stop() {
  if (stopped_) return;
  stopped_ = true;
  process_->stop(kStopGrace);
}

std::string proxy_version(const ProxyRow& proxy, process::CommandLog& log) {
  static std::map<std::string_view, std::string> known;
  if (auto it = known.find(proxy.name); it != known.end()) return it->second;
  process::CommandResult r = process::run({std::string(proxy.program), std::string(proxy.version_flag)}, log);
  std::string text = r.out + r.err;
  std::smatch m;
  static const std::regex number(R"((\d+\.\d+\.\d+))");
  std::string version = std::regex_search(text, m, number) ? std::string(proxy.title) + " " + m[1].str()
                                                           : std::string(proxy.title);
  return known[proxy.name] = version;
}

ProxyProcess::ProxyProcess(const PathRow& path, Carriage carriage, const netem::Host& middle, ProxyConfigInput in,
                           const CellFiles& files, process::CommandLog& log)
    : proxy_(*path.proxy), dir_(files.dir), log_(log), address_(middle.address),
      config_name_(std::string(path.proxy->config_name)),
      version_(proxy_version(*path.proxy, log)) {
  const ProxyRow& proxy = *path.proxy;
  in.dir = files.dir;
  in.listen_addr = middle.address;
  in.listen_port = kListenPort;
  log_path_ = in.log_path = files.path("proxy.log");
  ::mkdir(files.path("nginx-temp").c_str(), 0755);  // nginx's temporary files (its template names them)
  std::string config;
  try {
    config = render_proxy_config(path, carriage, in);
  } catch (const std::exception& e) {
    throw CellFailure(e.what());
  }
  write_file_atomically(files.path(config_name_), config);
  process::SpawnOptions spawn;
  spawn.netns = middle.netns;
  spawn.env = proxy.env(files.dir);
  // HAProxy logs its requests on standard output; the others write their
  // own log and keep standard error for start-up words.
  spawn.stdout_path = proxy.log_on_stdout ? log_path_ : files.path("proxy.out");
  spawn.stderr_path = files.path("proxy.err");
  process_ = std::make_unique<ListeningProcess>(version_, proxy.argv(files.path(config_name_), files.dir), spawn,
                                                kListenPort, carriage == Carriage::kDatagram, files.path("proxy.err"),
                                                log);
}

std::string ProxyProcess::endpoint() const { return fmt::format("{}:{}", address_, kListenPort); }

nlohmann::json ProxyProcess::set_in_pool(int k, bool in) {
  if (proxy_.pool != PoolControl::kRuntimeApi)
    throw CellFailure(fmt::format("{}'s pool cannot be changed by rpclab yet", proxy_.title));
  std::string server = fmt::format("replicas/r{}", k);
  std::string command = fmt::format("set server {} state {}", server, in ? "ready" : "maint");
  std::string reply, state;
  try {
    reply = haproxy_runtime_command(dir_, command, log_);
    state = haproxy_server_state(haproxy_runtime_command(dir_, "show servers state replicas", log_), k);
  } catch (const std::exception& e) {
    throw CellFailure(e.what());
  }
  // An empty reply is HAProxy's yes; anything else is its refusal.
  if (reply.find_first_not_of(" \r\n") != std::string::npos)
    throw CellFailure(fmt::format("HAProxy refused \"{}\": {}", command, reply));
  nlohmann::json did = {{"tool", "haproxy runtime API"}, {"command", command}, {"server_state", state}};
  // srv_admin_state, the 7th field: bit 0x01 is "forced maintenance".
  std::istringstream fields(state);
  std::string field;
  for (int i = 0; i < 7 && fields >> field; ++i) {
  }
  if (!field.empty() && std::isdigit(static_cast<unsigned char>(field[0]))) {
    int admin = std::stoi(field);
    did["admin_state"] = admin;
    if (((admin & 1) != 0) == in)
      throw CellFailure(fmt::format("HAProxy took \"{}\" and reports {} in admin state {}", command, server, admin));
  }
  return did;
}

std::string haproxy_runtime_command(const std::string& dir, const std::string& command, process::CommandLog& log) {
  log.comment(fmt::format("haproxy runtime API ({}/haproxy.sock): {}", dir, command));
  // Through the folder's descriptor: the socket's full path may pass the
  // 107 bytes a socket address holds.
  int folder = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (folder < 0) throw std::runtime_error(fmt::format("cannot open {}: {}", dir, std::strerror(errno)));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "/proc/self/fd/%d/haproxy.sock", folder);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval two_s{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &two_s, sizeof two_s);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int err = errno;
  ::close(folder);
  if (rc != 0) {
    ::close(fd);
    throw std::runtime_error(fmt::format("cannot reach HAProxy's runtime API at {}/haproxy.sock: {}", dir,
                                         std::strerror(err)));
  }
  std::string line = command + "\n", reply;
  bool sent = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  // Not in interactive mode, HAProxy answers one command and closes.
  char buf[4096];
  for (ssize_t n; sent && (n = ::read(fd, buf, sizeof buf)) > 0;) reply.append(buf, static_cast<size_t>(n));
  ::close(fd);
  if (!sent) throw std::runtime_error("HAProxy's runtime API took no command: " + command);
  return reply;
}

std::string haproxy_server_state(const std::string& show_servers_state, int k) {
  std::istringstream lines(show_servers_state);
  std::string want = fmt::format(" r{} ", k);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#' && line.find(want) != std::string::npos) return line;
  return "";
}

}  // namespace rpclab::harness
