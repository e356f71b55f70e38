// A proxy (or the shared table's Redis) running for one trial in the path's
// middle host: its configuration rendered into the trial's folder, started
// the way its users run it in the foreground, ready once the kernel shows
// its socket listening, stopped and reaped at the end. A proxy that cannot
// start fails the trial with its own words, never a hang.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/paths/path_table.h"
#include "harness/paths/proxy_config.h"
#include "harness/placement/cell_processes.h"
#include "netem/topology/topology.h"
#include "process/child_process.h"
#include "process/command_log.h"

namespace rpclab::harness {

// Whether a socket of the network namespace `pid` lives in listens on
// `port` (TCP in LISTEN, or a bound UDP socket), from /proc/PID/net/.
bool listening_in_namespace_of(pid_t pid, int port, bool udp);

// The CPU time (user + system, microseconds) of `pid` and every process
// descended from it, from /proc/PID/stat: a proxy that forks workers
// (nginx: a master and its worker) counts them all, and those it has
// reaped (cutime, cstime). 0 once it is gone.
double process_tree_cpu_us(pid_t pid);

// A program started in `host`'s namespace and waited for until it listens
// on `port`. Throws CellFailure with the last lines of its log when it
// exits first or is not listening within 10 s.
class ListeningProcess {
 public:
  ListeningProcess(std::string what, const std::vector<std::string>& argv, const process::SpawnOptions& spawn,
                   int port, bool udp, std::string log_path, process::CommandLog& log);
  ~ListeningProcess();
  pid_t pid() const { return process_->pid(); }
  void check_alive();  // throws CellFailure when it died
  void stop();         // SIGTERM, then SIGKILL after a grace; reaped

 private:
  std::string what_, log_path_;
  std::unique_ptr<process::ChildProcess> process_;
  bool stopped_ = false;
};

class ProxyProcess {
 public:
  static constexpr int kListenPort = 7000;  // on the middle host's client-side address
  ProxyProcess(const PathRow& path, Carriage carriage, const netem::Host& middle, ProxyConfigInput in,
               const CellFiles& files, process::CommandLog& log);
  std::string endpoint() const;
  std::string log_path() const { return log_path_; }
  std::string config_file() const { return config_name_; }  // in the trial's folder
  const std::string& version() const { return version_; }
  void check_alive() { process_->check_alive(); }
  void stop() { process_->stop(); }
  // Its CPU time so far, workers included (process_tree_cpu_us).
  double cpu_us() const { return process_tree_cpu_us(process_->pid()); }
  // Replica k out of its pool (in: false) or back in, by the proxy's own
  // mechanism (ProxyRow::pool); what it did, with the state the proxy
  // reports afterwards as the evidence. Throws CellFailure when the proxy
  // refuses or has no such mechanism here.
  nlohmann::json set_in_pool(int k, bool in);

  // Caddy's admin API, on loopback in the proxy's namespace (its
  // templates' `admin`).
  static constexpr const char* kCaddyAdmin = "127.0.0.1:2019";

 private:
  nlohmann::json set_in_pool_haproxy(int k, bool in);
  nlohmann::json set_in_pool_nginx(int k, bool in);
  nlohmann::json set_in_pool_caddy(int k, bool in);
  void write_config();  // rendered from in_, which says who is out of the pool
  std::string replica(int k) const;  // "ADDR:PORT", as the proxies name it

  const ProxyRow& proxy_;
  const PathRow& path_;
  Carriage carriage_;
  std::string dir_, netns_;
  process::CommandLog& log_;
  std::string address_, log_path_, config_name_, version_;
  ProxyConfigInput in_;
  std::string out_worker_;  // nginx: the worker started with a replica down
  double out_since_ = 0;    // when the replica's leaving took effect, Unix seconds
  std::unique_ptr<ListeningProcess> process_;
};

// nginx's error log from `from` on, after a SIGHUP: the pid of the worker
// the master started on the new configuration (its "start worker process
// N"), "" when not yet; throws std::runtime_error with nginx's words when
// it refused the configuration ([emerg] or [alert]).
std::string nginx_reloaded_worker(const std::string& error_log_tail);

// Every upstream address ("dial") in a Caddy JSON configuration (its
// admin API's /config/ answer), in order.
std::vector<std::string> caddy_upstreams(const nlohmann::json& config);

// One command to HAProxy's runtime API on the socket haproxy.sock in
// `dir` (its templates' `stats socket`), logged to the commands log; its
// reply. Throws std::runtime_error when the socket does not answer.
std::string haproxy_runtime_command(const std::string& dir, const std::string& command, process::CommandLog& log);
// Replica k's line (server rK) of `show servers state`, or "".
std::string haproxy_server_state(const std::string& show_servers_state, int k);

// "HAProxy version 2.6.12-1+deb12u4 ..." -> "HAProxy 2.6.12": the first
// line of the program's version output, asked once per process.
std::string proxy_version(const ProxyRow& proxy, process::CommandLog& log);

}  // namespace rpclab::harness
