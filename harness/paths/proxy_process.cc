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
#include <cmath>
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
#include "harness/paths/proxy_log.h"
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
    : proxy_(*path.proxy), path_(path), carriage_(carriage), dir_(files.dir), netns_(middle.netns), log_(log),
      address_(middle.address), config_name_(std::string(path.proxy->config_name)),
      version_(proxy_version(*path.proxy, log)) {
  const ProxyRow& proxy = *path.proxy;
  in.dir = files.dir;
  in.listen_addr = middle.address;
  in.listen_port = kListenPort;
  log_path_ = in.log_path = files.path("proxy.log");
  ::mkdir(files.path("nginx-temp").c_str(), 0755);  // nginx's temporary files (its template names them)
  in.out_of_pool.assign(in.replica_addrs.size(), false);
  in_ = in;
  write_config();
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

void ProxyProcess::write_config() {
  std::string config;
  try {
    config = render_proxy_config(path_, carriage_, in_);
  } catch (const std::exception& e) {
    throw CellFailure(e.what());
  }
  write_file_atomically(dir_ + "/" + config_name_, config);
}

std::string ProxyProcess::replica(int k) const {
  return fmt::format("{}:{}", in_.replica_addrs.at(k - 1), in_.replica_port);
}

nlohmann::json ProxyProcess::set_in_pool(int k, bool in) {
  if (k < 1 || k > static_cast<int>(in_.replica_addrs.size()))
    throw CellFailure(fmt::format("{} has no replica {} in its pool", proxy_.title, k));
  switch (proxy_.pool) {
    case PoolControl::kRuntimeApi: return set_in_pool_haproxy(k, in);
    case PoolControl::kReload: return set_in_pool_nginx(k, in);
    case PoolControl::kAdminApi: return set_in_pool_caddy(k, in);
    case PoolControl::kNone: break;
  }
  throw CellFailure(fmt::format("{}'s pool cannot be changed by rpclab", proxy_.title));
}

nlohmann::json ProxyProcess::set_in_pool_haproxy(int k, bool in) {
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

namespace {

constexpr auto kReloadTimeout = 10s;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string read_from(const std::string& path, uint64_t from) {
  std::ifstream f(path, std::ios::binary);
  f.seekg(static_cast<std::streamoff>(from));
  std::ostringstream text;
  text << f.rdbuf();
  return text.str();
}

uint64_t size_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace

std::string nginx_reloaded_worker(const std::string& tail) {
  static const std::regex started(R"(start worker process (\d+))");
  std::istringstream lines(tail);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("[emerg]") != std::string::npos || line.find("[alert]") != std::string::npos)
      throw std::runtime_error(line);
    std::smatch m;
    if (std::regex_search(line, m, started)) return m[1].str();
  }
  return "";
}

// The operator's way without nginx-plus's API: the upstream rewritten and
// the master told to reload. The master reads the file, starts new workers
// on it, and tells the old ones to finish: a request an old worker holds
// runs to its end on the old pool (to rK too), its idle keep-alive
// connections are closed, and every new one goes to the new workers. So
// the proof that rK is out is in nginx's own access log: no request a
// worker started with rK down carried went to rK.
nlohmann::json ProxyProcess::set_in_pool_nginx(int k, bool in) {
  const std::string error_log = dir_ + "/proxy-error.log";
  const pid_t master = process_->pid();
  nlohmann::json did = {{"tool", "nginx reload (SIGHUP to its master)"},
                        {"command", fmt::format("server {}{};", replica(k), in ? "" : " down")},
                        {"master_pid", master}};
  if (in && !out_worker_.empty()) {
    // What the worker that ran with rK down carried, by its own log lines;
    // and what the old workers still sent rK after it took over: requests
    // in flight at the change, and new ones on the connections an old
    // worker keeps until they close (its graceful shutdown).
    uint64_t carried = 0, to_replica = 0, old_to_replica = 0;
    double last_old = out_since_;
    for (const ProxyRequest& r : read_proxy_log(log_path_).requests) {
      bool to_k = r.upstreams.find(replica(k)) != std::string::npos;
      if (r.worker == out_worker_) {
        ++carried;
        to_replica += to_k;
      } else if (r.ended >= out_since_ && to_k) {
        ++old_to_replica;
        last_old = std::max(last_old, r.ended);
      }
    }
    did["while_out"] = {{"worker_pid", std::stoi(out_worker_)},
                        {"requests", carried},
                        {"to_replica", to_replica},
                        {"old_workers_to_replica", old_to_replica},
                        {"last_to_replica_ms", std::round((last_old - out_since_) * 1e4) / 10}};
    if (to_replica > 0)
      throw CellFailure(fmt::format("nginx's worker {}, started with {} down, logged {} of its {} requests as sent "
                                    "to it",
                                    out_worker_, replica(k), to_replica, carried));
  }
  in_.out_of_pool.at(k - 1) = !in;
  write_config();
  uint64_t from = size_of(error_log);
  log_.comment(fmt::format("nginx reload: kill -HUP {} (the master rpclab started), {} now says {}", master,
                           config_name_, did["command"].get<std::string>()));
  if (::kill(master, SIGHUP) != 0)
    throw CellFailure(fmt::format("cannot send SIGHUP to nginx's master {}: {}", master, std::strerror(errno)));
  auto deadline = std::chrono::steady_clock::now() + kReloadTimeout;
  std::string worker;
  for (;;) {
    try {
      worker = nginx_reloaded_worker(read_from(error_log, from));
    } catch (const std::exception& e) {
      throw CellFailure(fmt::format("nginx refused the new configuration: {}", e.what()));
    }
    if (!worker.empty()) break;
    process_->check_alive();
    if (std::chrono::steady_clock::now() > deadline)
      throw CellFailure(fmt::format("nginx started no worker within {} s of SIGHUP: {}", kReloadTimeout.count(),
                                    log_tail(error_log)));
    std::this_thread::sleep_for(2ms);
  }
  did["worker_pid"] = std::stoi(worker);
  out_worker_ = in ? "" : worker;
  out_since_ = unix_now();
  return did;
}

std::vector<std::string> caddy_upstreams(const nlohmann::json& config) {
  std::vector<std::string> out;
  if (config.is_object()) {
    for (const auto& [key, value] : config.items()) {
      if (key == "upstreams" && value.is_array()) {
        for (const auto& u : value)
          if (u.is_object() && u.contains("dial") && u["dial"].is_string()) out.push_back(u["dial"]);
      } else {
        for (std::string& d : caddy_upstreams(value)) out.push_back(std::move(d));
      }
    }
  } else if (config.is_array()) {
    for (const auto& v : config)
      for (std::string& d : caddy_upstreams(v)) out.push_back(std::move(d));
  }
  return out;
}

// Caddy's own way: the Caddyfile without (or with again) rK's `to` line,
// loaded through its admin API (`caddy reload` POSTs it to /load). Caddy
// builds the new handler and lets the old server finish the requests it
// holds; then the API's /config/ is asked which upstreams it dials now.
nlohmann::json ProxyProcess::set_in_pool_caddy(int k, bool in) {
  nlohmann::json did = {
      {"tool", fmt::format("caddy reload (its admin API at {} in the proxy's namespace)", kCaddyAdmin)},
      {"command", fmt::format("reverse_proxy {} to {}", in ? "with" : "without", replica(k))}};
  if (in) {
    // What Caddy's own log says reached rK while it was out: round trips
    // in flight at the change, and those the old configuration's handler
    // still served (a connection Caddy keeps past a reload).
    uint64_t roundtrips = 0, to_replica = 0;
    double last = out_since_;
    for (const CaddyRoundtrip& r : read_caddy_roundtrips(dir_ + "/proxy-error.log")) {
      if (r.ended < out_since_) continue;
      ++roundtrips;
      if (r.upstream != replica(k)) continue;
      ++to_replica;
      last = std::max(last, r.ended);
    }
    did["while_out"] = {{"roundtrips", roundtrips},
                        {"to_replica", to_replica},
                        {"last_to_replica_ms", std::round((last - out_since_) * 1e4) / 10}};
  }
  in_.out_of_pool.at(k - 1) = !in;
  write_config();
  std::string config = dir_ + "/" + config_name_;
  process::CommandResult r = process::run({std::string(proxy_.program), "reload", "--config", config, "--adapter",
                                           "caddyfile", "--address", kCaddyAdmin},
                                          log_, netns_);
  if (r.exit_code != 0)
    throw CellFailure(fmt::format("Caddy refused the reload (exit {}): {}", r.exit_code, r.err + r.out));
  process::CommandResult get =
      process::run({"curl", "-sS", "--max-time", "2", fmt::format("http://{}/config/apps/http/servers", kCaddyAdmin)},
                   log_, netns_);
  std::vector<std::string> upstreams;
  try {
    upstreams = caddy_upstreams(nlohmann::json::parse(get.out));
  } catch (const std::exception& e) {
    throw CellFailure(fmt::format("Caddy's admin API gave no configuration (exit {}): {} {}", get.exit_code, get.out,
                                  get.err));
  }
  bool listed = std::find(upstreams.begin(), upstreams.end(), replica(k)) != upstreams.end();
  if (listed != in)
    throw CellFailure(fmt::format("Caddy took the reload and its admin API {} {}", listed ? "still lists" : "lacks",
                                  replica(k)));
  did["upstreams"] = upstreams;
  out_since_ = unix_now();
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
