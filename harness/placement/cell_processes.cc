#include "harness/placement/cell_processes.h"

#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "common/atomic_file.h"
#include "common/cli_support.h"
#include "server/journal_reader.h"
#include "harness/run/cell_failure.h"
#include "netem/events/link_event_rules.h"
#include "process/command_runner.h"
#include "process/process_cpu.h"
#include "transport/settings_table.h"
#include "transport/transport.h"
#include "server/server_stats.h"

namespace rpclab::harness {
namespace {

using namespace std::chrono_literals;

constexpr auto kReadyTimeout = 20s;
constexpr auto kStopGrace = 10s;

std::optional<nlohmann::json> read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // caught between write and rename cannot happen; a stray file can
  }
}

void check_interrupt(const ProcessPlacement& placement) {
  if (placement.stop && placement.stop->load()) throw Interrupted();
}

}  // namespace

namespace {

const AdapterManifest* adapter_of(const CellConfig& cell) {
  const TransportRow* row = find_transport(cell.transport);
  return row ? row->adapter : nullptr;
}

// An adapter's server (docs/adapters.md, "The server"): its own program,
// the contract's flags; it always journals, in the lines form.
std::vector<std::string> adapter_server_argv(const AdapterManifest& a, const CellConfig& cell, const std::string& listen,
                                             const CellFiles& files) {
  std::vector<std::string> argv = a.server;
  argv.insert(argv.end(), {"--listen", listen, "--journal", files.path(std::string(kJournalLinesName)), "--ready-file",
                           files.path("server.ready")});
  if (cell.at_most_once) argv.push_back("--at-most-once");
  if (a.server_stats) argv.insert(argv.end(), {"--stats-file", files.path("server.stats")});
  return argv;
}

}  // namespace

std::string adapter_cannot_run(const CellConfig& cell, bool remote) {
  const AdapterManifest* a = adapter_of(cell);
  if (!a) return "";
  if (remote)
    return "adapter " + a->name + " does not run with --server-host yet: the harness copies only rpclab-server and "
           "rpclab-client to the other machine";
  if (cell.at_most_once && !a->at_most_once)
    return "adapter " + a->name + "'s server does not implement --at-most-once (its manifest, " + a->file + ")";
  return "";
}

// `listen`: ADDR:PORT.
std::vector<std::string> server_argv(const CellConfig& cell, const std::string& listen, const CellFiles& files,
                                     const std::string& bin_dir) {
  if (const AdapterManifest* a = adapter_of(cell)) return adapter_server_argv(*a, cell, listen, files);
  std::vector<std::string> argv = {bin_dir + "/rpclab-server", "--transport", cell.transport,
                                   "--listen", listen, "--ledger", files.path("ledger.bin"),
                                   "--ready-file", files.path("server.ready"), "--stats-file",
                                   files.path("server.stats")};
  // Dependability cells always journal: it costs a few percent per call
  // (docs/architecture.md) and keeps the executions of a server that dies.
  // The at-most-once table is durable through the journal, so a speed cell
  // that measures it pays for both.
  if (cell.experiment == "dependability" || cell.at_most_once)
    argv.insert(argv.end(), {"--journal", files.path("journal.bin")});
  // The shared table's flag names its store, which the path's servers add
  // (harness/paths/path_servers.h); the per-server table is this flag.
  if (cell.at_most_once && !cell.at_most_once_shared) argv.push_back("--at-most-once");
  for (const std::string& arg : setting_args(cell.server_options().settings)) argv.push_back(arg);
  return argv;
}

// An adapter's client takes rpclab-client's flags but --transport
// (docs/adapters.md, "The client"), all of them given: rpclab-client's
// defaults spelt out, which an experiment's own arguments after them
// override (the last of a repeated flag counts).
std::vector<std::string> client_argv(const CellConfig& cell, int k, const std::string& endpoint,
                                     const CellFiles& files, const std::string& bin_dir) {
  const AdapterManifest* adapter = adapter_of(cell);
  std::vector<std::string> argv = adapter ? adapter->client
                                          : std::vector<std::string>{bin_dir + "/rpclab-client", "--transport", cell.transport};
  argv.insert(argv.end(), {"--server", endpoint, "--calls", std::to_string(cell.calls_per_client),
                           "--client-id", std::to_string(k), "--connect", std::string(connect_mode_name(cell.connect)),
                           "--record", files.client_record(k)});
  if (adapter)
    argv.insert(argv.end(), {"--first-seq", "0", "--op", "next", "--size", "0", "--warmup", "0"});
  if (cell.timeout_ms) argv.insert(argv.end(), {"--timeout", std::to_string(*cell.timeout_ms)});
  for (const std::string& arg : setting_args(cell.client_options().settings)) argv.push_back(arg);
  if (cell.retry.policy != RetryPolicy::kNone)
    argv.insert(argv.end(), {"--retry-policy", std::string(retry_policy_name(cell.retry.policy))});
  if (cell.retry.policy == RetryPolicy::kApp) argv.insert(argv.end(), {"--app-retries", std::to_string(cell.retry.app_retries)});
  if (adapter && cell.retry.policy == RetryPolicy::kApp) {
    AppRetryOptions defaults;  // rpclab-client's, spelt out for a program that has none
    argv.insert(argv.end(), {"--app-backoff", std::to_string(defaults.backoff_ms), "--app-backoff-max",
                             std::to_string(defaults.backoff_max_ms)});
  }
  if (cell.duration_ms) argv.insert(argv.end(), {"--duration", std::to_string(*cell.duration_ms)});
  return argv;
}

std::string log_tail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string tail;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    if (!tail.empty()) tail += " | ";
    tail += all[i];
  }
  return tail.empty() ? "(no output)" : tail;
}

ProcessPlacement place_processes(const CellConfig& cell, const std::string& bin_dir, int cpus,
                                 const std::atomic<bool>* stop) {
  ProcessPlacement p;
  p.bin_dir = bin_dir;
  p.stop = stop;
  if (cell.pin && cpus >= 2) {
    p.server_cpus = {0};
    for (int c = 1; c < cpus; ++c) p.client_cpus.push_back(c);
  }
  return p;
}

namespace {

// A server event that restarts the server needs its port free while it is
// down: below the ephemeral range no client socket is given it (a client
// that retried on a new socket once took a killed raw-udp server's port).
uint16_t first_port_below_ephemeral() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768;
  range >> low;
  // Spread over 2,000 ports by pid, so runs side by side rarely collide.
  return static_cast<uint16_t>(std::max(1024, low - 1 - static_cast<int>(::getpid() % 2000)));
}

// Server events may start it again (a crash), so it gets a fixed port.
bool has_server_events(const CellConfig& cell) {
  return std::any_of(cell.faults.events.begin(), cell.faults.events.end(),
                     [](const netem::FaultEvent& e) { return e.kind->target == netem::EventTarget::kServer; });
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

ServerUnderTest::ServerUnderTest(const CellConfig& cell, const netem::Host& host, const CellFiles& files,
                                 const ProcessPlacement& placement, process::CommandLog& log, ServerStart how)
    : cell_(cell), host_(host), files_(files), placement_(placement), log_(log), how_(std::move(how)),
      address_(host.address) {
  if (!has_server_events(cell) && !how_.fixed_port) {
    if (!start(0)) throw CellFailure("server did not start: " + log_tail(log_path()));
    return;
  }
  constexpr int kTries = 50;
  uint16_t port = first_port_below_ephemeral();
  for (int i = 0; i < kTries; ++i, --port)
    if (start(port)) return;
  throw CellFailure(fmt::format("server did not start on any of {} ports below the ephemeral range (from {} "
                                "down): {}", kTries, port + kTries, log_tail(log_path())));
}

ServerUnderTest::~ServerUnderTest() {
  if (stats_watch_ >= 0) ::close(stats_watch_);
}

std::string ServerUnderTest::log_path() const {
  return lives_ <= 1 ? files_.path("server.log") : files_.path(fmt::format("server-{}.log", lives_));
}

bool ServerUnderTest::start(uint16_t port) {
  ::unlink(files_.path("server.ready").c_str());
  ++lives_;
  stats_generation_ = 0;
  process::SpawnOptions spawn;
  spawn.netns = host_.netns;
  spawn.cpus = placement_.server_cpus;
  spawn.stderr_path = spawn.stdout_path = log_path();
  std::vector<std::string> argv = server_argv(cell_, address_ + ":" + std::to_string(port), files_, placement_.bin_dir);
  argv.insert(argv.end(), how_.extra_args.begin(), how_.extra_args.end());
  process_ = std::make_unique<process::ChildProcess>(argv, spawn, log_);
  auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto ready = read_json_file(files_.path("server.ready"))) {
      port_ = ready->at("port").get<uint16_t>();
      killed_ = false;
      return true;
    }
    if (auto status = process_->poll()) {
      if (port && WIFEXITED(*status) && WEXITSTATUS(*status) == kExitSetup &&
          log_tail(log_path()).find("in use") != std::string::npos) {
        --lives_;  // not a life: the next port is tried
        return false;
      }
      throw CellFailure(fmt::format("server did not start ({}): {}", process::describe_wait_status(*status),
                                    log_tail(log_path())));
    }
    check_interrupt(placement_);
    std::this_thread::sleep_for(10ms);
  }
  throw CellFailure(fmt::format("server did not report ready within {} s: {}", kReadyTimeout.count(),
                                log_tail(log_path())));
}

std::optional<pid_t> ServerUnderTest::local_pid() const { return process_->pid(); }

std::string ServerUnderTest::endpoint() const { return address_ + ":" + std::to_string(port_); }

std::optional<nlohmann::json> ServerUnderTest::stats() {
  if (!process_->running()) return std::nullopt;
  // SIGUSR1's default action kills: only a server that claims to answer it
  // gets it. Another adapter's server is measured from outside: its CPU
  // time from /proc, and no counts (speed then counts the clients' calls).
  if (const AdapterManifest* a = adapter_of(cell_); a && !a->server_stats) {
    std::optional<process::ProcessCpu> cpu = process::process_cpu(process_->pid());
    if (!cpu) return std::nullopt;
    return nlohmann::json{{"cpu_user_us", cpu->user_us}, {"cpu_sys_us", cpu->sys_us}, {"cpu_from", "proc"}};
  }
  int want = ++stats_generation_;
  // The server renames its new stats file into its folder: woken by that
  // rename rather than a 2 ms poll (a speed trial asks once, and the poll's
  // sleep was a millisecond of each). Watched before the signal, so the
  // rename cannot come first; events of earlier requests are drained.
  if (stats_watch_ < 0) {
    stats_watch_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (stats_watch_ >= 0 && ::inotify_add_watch(stats_watch_, files_.dir.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
      ::close(stats_watch_);
      stats_watch_ = -1;
    }
  }
  int watch = stats_watch_;
  auto drain = [watch] {
    char events[4096];
    while (watch >= 0 && ::read(watch, events, sizeof events) > 0) {
    }
  };
  drain();
  ::kill(process_->pid(), SIGUSR1);
  // A server pinned beside hogs, on a machine busy with other work, can
  // take far longer than its usual millisecond to answer: 100 ms failed 173
  // of 5,064 speed trials beside two builds. Wait up to 5 s, and stop early
  // if it died (looked at every 50 ms at least).
  auto deadline = std::chrono::steady_clock::now() + 5s;
  std::optional<nlohmann::json> answer;
  while (std::chrono::steady_clock::now() < deadline && process_->running()) {
    auto s = read_json_file(files_.path("server.stats"));
    if (s && s->get<ServerStats>().generation >= want) {
      stats_generation_ = static_cast<int>(s->get<ServerStats>().generation);
      answer = std::move(s);
      break;
    }
    if (watch < 0) {
      std::this_thread::sleep_for(2ms);
      continue;
    }
    pollfd p{watch, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) drain();
  }
  return answer;
}

void ServerUnderTest::check_alive() {
  if (killed_) return;
  if (auto status = process_->poll())
    throw CellFailure(fmt::format("server died mid-run ({}): {}", process::describe_wait_status(*status),
                                  log_tail(log_path())));
}

nlohmann::json ServerUnderTest::kill() {
  check_alive();
  pid_t pid = process_->pid();
  process_->signal(SIGKILL);
  int status = process_->wait_for(kStopGrace).value_or(-1);
  killed_ = true;
  log_.comment(fmt::format("server {} killed by the event ({})", pid, process::describe_wait_status(status)));
  return {{"signal", "SIGKILL"}, {"pid", pid}};
}

nlohmann::json ServerUnderTest::restart() {
  auto began = std::chrono::steady_clock::now();
  uint16_t port = port_;
  if (!start(port))
    throw CellFailure(fmt::format("the server did not restart on port {}: it is taken ({})", port,
                                  log_tail(log_path())));
  return {{"pid", process_->pid()}, {"port", port_}, {"ready_ms", ms_since(began)}, {"log", log_path().substr(files_.dir.size() + 1)}};
}

nlohmann::json ServerUnderTest::pause() {
  check_alive();
  ::kill(process_->pid(), SIGSTOP);
  return {{"signal", "SIGSTOP"}, {"pid", process_->pid()}};
}

nlohmann::json ServerUnderTest::resume() {
  ::kill(process_->pid(), SIGCONT);
  return {{"signal", "SIGCONT"}, {"pid", process_->pid()}};
}

nlohmann::json ServerUnderTest::reset_connections() {
  if (host_.netns.empty())
    throw CellFailure("server-reset closes every TCP connection of the server's namespace: this server runs in the "
                      "host's own (a loopback cell), where that would reset the host's connections; give it a "
                      "namespace (--topology two-host, or a path)");
  check_alive();
  size_t closed = netem::count_socket_lines(process::run_checked(netem::ss_kill_connected_argv(), log_, host_.netns).out);
  nlohmann::json did = {{"tool", "ss"}, {"netns", host_.netns}, {"closed", closed}};
  // ss -K skips silently what the kernel cannot close (no
  // CONFIG_INET_DIAG_DESTROY); none open is a reset that struck nothing.
  if (closed == 0) {
    size_t open = netem::count_socket_lines(process::run_checked(netem::ss_connected_argv(), log_, host_.netns).out);
    did["warning"] = open > 0 ? fmt::format("ss -K closed none of the {} connections: the kernel needs "
                                            "CONFIG_INET_DIAG_DESTROY=y", open)
                              : std::string("server-reset closed nothing: the server had no connection open");
  }
  return did;
}

Ledger ServerUnderTest::stop_and_read_ledger(const CellFiles&) {
  if (killed_) return read_ledger();  // down at the end: its journal is all there is
  check_alive();
  int status = process_->stop(kStopGrace);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw CellFailure(fmt::format("server did not stop cleanly ({}): {}", process::describe_wait_status(status),
                                  log_tail(log_path())));
  return read_ledger();
}

// The journal is the record of what ran, durable even when a server dies
// (then it is all there is); after a clean stop the server's own ledger.bin
// must say the same, or one of the two is wrong and the cell is not to be
// trusted.
Ledger ServerUnderTest::read_ledger() const { return read_server_ledger(files_); }

Ledger read_server_ledger(const CellFiles& files) {
  auto exists = [&](const char* name) { return ::access(files.path(name).c_str(), F_OK) == 0; };
  try {
    std::string journal = journal_in(files.dir);
    if (::access(journal.c_str(), F_OK) != 0) return Ledger::read_file(files.path("ledger.bin"));
    Ledger journaled = read_journal_ledger(journal);
    if (exists("ledger.bin") &&
        journaled.serialize() != Ledger::read_file(files.path("ledger.bin")).serialize())
      throw CellFailure("the server's ledger.bin and its journal disagree on what ran");
    return journaled;
  } catch (const CellFailure&) {
    throw;
  } catch (const std::exception& e) {
    throw CellFailure(std::string("cannot read the server's ledger: ") + e.what());
  }
}

namespace {

// Sleeps until one of the clients still running exits, or `most` passes:
// a pidfd is readable when its process ends, so a trial ends the moment
// its last client does instead of at the loop's next 5 ms tick, which cost
// a speed trial 2.5 ms on average (its calls take 10-100 ms). `wake`
// (>= 0) ends the wait too when it is readable. Without pidfds (Linux
// before 5.3) it sleeps.
void wait_for_an_exit(std::vector<std::unique_ptr<process::ChildProcess>>& clients, std::chrono::milliseconds most,
                      int wake) {
  std::vector<pollfd> fds;
  size_t running = 0;
  for (auto& c : clients) {
    if (c->poll()) continue;  // reaped: its pid may be another process's now
    ++running;
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, c->pid(), 0));
    if (fd >= 0) fds.push_back({fd, POLLIN, 0});
  }
  size_t pidfds = fds.size();
  if (wake >= 0) fds.push_back({wake, POLLIN, 0});
  if (pidfds < running && wake < 0) std::this_thread::sleep_for(most);
  else ::poll(fds.data(), fds.size(), static_cast<int>(most.count()));
  for (size_t i = 0; i < pidfds; ++i) ::close(fds[i].fd);
}

}  // namespace

ClientResults run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                          const netem::Host& host, const std::string& endpoint, const CellFiles& files,
                          const ProcessPlacement& placement, std::chrono::seconds limit,
                          const std::function<void()>& tick, process::CommandLog& log,
                          const WaitPoll& poll) {
  std::vector<std::unique_ptr<process::ChildProcess>> clients;
  for (int k = 1; k <= cell.clients; ++k) {
    process::SpawnOptions spawn;
    spawn.netns = host.netns;
    spawn.cpus = placement.client_cpus;
    spawn.stdout_path = spawn.stderr_path = files.client_log(k);
    std::vector<std::string> argv = client_argv(cell, k, endpoint, files, placement.bin_dir);
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    clients.push_back(std::make_unique<process::ChildProcess>(argv, spawn, log));
  }
  ClientResults results;
  auto started = std::chrono::steady_clock::now();
  auto next_tick = started + 1s;
  for (;;) {
    bool all_done = true;
    for (auto& c : clients) all_done = all_done && c->poll().has_value();
    if (all_done) break;
    check_interrupt(placement);
    int wake = poll ? poll() : -1;
    auto now = std::chrono::steady_clock::now();
    if (now - started > limit && !results.truncated) {
      results.truncated = true;  // clients write what they have on SIGTERM
      for (auto& c : clients) c->signal(SIGTERM);
    }
    if (now >= next_tick) {
      tick();
      next_tick = now + 1s;
    }
    wait_for_an_exit(clients, 5ms, wake);
  }
  for (int k = 1; k <= cell.clients; ++k) {
    int status = *clients[k - 1]->poll();
    // kExitFailed: it ran and no call succeeded (a partition for the whole
    // trial), a measurement like any other, or it could not write its
    // record, which the read then says. Anything else: it crashed.
    bool ran = WIFEXITED(status) && (WEXITSTATUS(status) == kExitOk || WEXITSTATUS(status) == kExitFailed);
    if (!ran)
      throw CellFailure(fmt::format("client {} failed ({}): {}", k, process::describe_wait_status(status),
                                    log_tail(files.client_log(k))));
    try {
      results.records.push_back(read_client_record(files, k));
    } catch (const CellFailure& e) {
      if (WEXITSTATUS(status) == kExitOk) throw;
      throw CellFailure(fmt::format("{} (the client exited {}: {})", e.what(), WEXITSTATUS(status),
                                    log_tail(files.client_log(k))));
    }
  }
  return results;
}

CallRecord read_client_record(const CellFiles& files, int k) {
  try {
    return CallRecord::read_file(files.client_record(k));
  } catch (const std::exception& e) {
    throw CellFailure(fmt::format("cannot read client {}'s call record: {}", k, e.what()));
  }
}

}  // namespace rpclab::harness
