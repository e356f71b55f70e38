#include "harness/cell_processes.h"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <fstream>
#include <thread>

#include "core/atomic_file.h"
#include "core/journal_reader.h"
#include "harness/cell_failure.h"

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

std::vector<std::string> server_argv(const CellConfig& cell, const std::string& address, const CellFiles& files,
                                     const std::string& bin_dir) {
  std::vector<std::string> argv = {bin_dir + "/rpclab-server", "--transport", cell.transport,
                                   "--listen", address + ":0", "--ledger", files.path("ledger.bin"),
                                   "--ready-file", files.path("server.ready"), "--stats-file",
                                   files.path("server.stats")};
  // Dependability cells always journal: it costs a few percent per call
  // (docs/architecture.md) and keeps the executions of a server that dies.
  if (cell.experiment == "dependability") argv.insert(argv.end(), {"--journal", files.path("journal.bin")});
  if (cell.at_most_once) argv.push_back("--at-most-once");
  if (cell.drc) argv.insert(argv.end(), {"--drc", std::to_string(cell.drc)});
  if (cell.udp_bufsize) argv.insert(argv.end(), {"--udp-bufsize", std::to_string(cell.udp_bufsize)});
  return argv;
}

std::vector<std::string> client_argv(const CellConfig& cell, int k, const std::string& endpoint,
                                     const CellFiles& files, const std::string& bin_dir) {
  std::vector<std::string> argv = {bin_dir + "/rpclab-client", "--transport", cell.transport,
                                   "--server", endpoint, "--calls", std::to_string(cell.calls_per_client),
                                   "--client-id", std::to_string(k), "--connect",
                                   std::string(connect_mode_name(cell.connect)), "--record",
                                   files.client_record(k)};
  if (cell.timeout_ms) argv.insert(argv.end(), {"--timeout", std::to_string(*cell.timeout_ms)});
  if (cell.retry_timeout_ms) argv.insert(argv.end(), {"--retry-timeout", std::to_string(*cell.retry_timeout_ms)});
  if (cell.udp_bufsize) argv.insert(argv.end(), {"--udp-bufsize", std::to_string(cell.udp_bufsize)});
  if (cell.drain_stale_replies) argv.push_back("--drain-stale-replies");
  if (cell.grpc_retry) argv.push_back("--grpc-retry");
  return argv;
}

}  // namespace

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

ServerUnderTest::ServerUnderTest(const CellConfig& cell, const netem::Host& host, const CellFiles& files,
                                 const ProcessPlacement& placement, netem::CommandLog& log)
    : files_(files), address_(host.address) {
  netem::SpawnOptions spawn;
  spawn.netns = host.netns;
  spawn.cpus = placement.server_cpus;
  spawn.stderr_path = files.path("server.log");
  spawn.stdout_path = files.path("server.log");
  process_ = std::make_unique<netem::ChildProcess>(server_argv(cell, address_, files, placement.bin_dir), spawn, log);
  auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto ready = read_json_file(files.path("server.ready"))) {
      port_ = ready->at("port").get<uint16_t>();
      return;
    }
    if (auto status = process_->poll())
      throw CellFailure(fmt::format("server did not start ({}): {}", netem::describe_wait_status(*status),
                                    log_tail(files.path("server.log"))));
    check_interrupt(placement);
    std::this_thread::sleep_for(10ms);
  }
  throw CellFailure(fmt::format("server did not report ready within {} s: {}", kReadyTimeout.count(),
                                log_tail(files.path("server.log"))));
}

ServerUnderTest::~ServerUnderTest() = default;

std::string ServerUnderTest::endpoint() const { return address_ + ":" + std::to_string(port_); }

std::optional<nlohmann::json> ServerUnderTest::stats() {
  if (!process_->running()) return std::nullopt;
  int want = ++stats_generation_;
  ::kill(process_->pid(), SIGUSR1);
  for (int i = 0; i < 50; ++i) {
    auto s = read_json_file(files_.path("server.stats"));
    if (s && s->value("generation", 0) >= want) {
      stats_generation_ = s->value("generation", want);
      return s;
    }
    std::this_thread::sleep_for(2ms);
  }
  return std::nullopt;
}

void ServerUnderTest::check_alive() {
  if (auto status = process_->poll())
    throw CellFailure(fmt::format("server died mid-run ({}): {}", netem::describe_wait_status(*status),
                                  log_tail(files_.path("server.log"))));
}

Ledger ServerUnderTest::stop_and_read_ledger() {
  check_alive();
  int status = process_->stop(kStopGrace);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw CellFailure(fmt::format("server did not stop cleanly ({}): {}", netem::describe_wait_status(status),
                                  log_tail(files_.path("server.log"))));
  return read_ledger();
}

// The journal is the record of what ran, durable even when a server dies
// (then it is all there is); after a clean stop the server's own ledger.bin
// must say the same, or one of the two is wrong and the cell is not to be
// trusted.
Ledger ServerUnderTest::read_ledger() const {
  auto exists = [&](const char* name) { return ::access(files_.path(name).c_str(), F_OK) == 0; };
  try {
    if (!exists("journal.bin")) return Ledger::read_file(files_.path("ledger.bin"));
    Ledger journaled = read_journal_ledger(files_.path("journal.bin"));
    if (exists("ledger.bin") &&
        journaled.serialize() != Ledger::read_file(files_.path("ledger.bin")).serialize())
      throw CellFailure("the server's ledger.bin and its journal.bin disagree on what ran");
    return journaled;
  } catch (const CellFailure&) {
    throw;
  } catch (const std::exception& e) {
    throw CellFailure(std::string("cannot read the server's ledger: ") + e.what());
  }
}

ClientResults run_clients(const CellConfig& cell, const std::vector<std::string>& extra_args,
                          const netem::Host& host, const std::string& endpoint, const CellFiles& files,
                          const ProcessPlacement& placement, std::chrono::seconds limit,
                          const std::function<void()>& tick, netem::CommandLog& log) {
  std::vector<std::unique_ptr<netem::ChildProcess>> clients;
  for (int k = 1; k <= cell.clients; ++k) {
    netem::SpawnOptions spawn;
    spawn.netns = host.netns;
    spawn.cpus = placement.client_cpus;
    spawn.stdout_path = spawn.stderr_path = files.client_log(k);
    std::vector<std::string> argv = client_argv(cell, k, endpoint, files, placement.bin_dir);
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    clients.push_back(std::make_unique<netem::ChildProcess>(argv, spawn, log));
  }
  ClientResults results;
  auto started = std::chrono::steady_clock::now();
  auto next_tick = started + 1s;
  for (;;) {
    bool all_done = true;
    for (auto& c : clients) all_done = all_done && c->poll().has_value();
    if (all_done) break;
    check_interrupt(placement);
    auto now = std::chrono::steady_clock::now();
    if (now - started > limit && !results.truncated) {
      results.truncated = true;  // clients write what they have on SIGTERM
      for (auto& c : clients) c->signal(SIGTERM);
    }
    if (now >= next_tick) {
      tick();
      next_tick = now + 1s;
    }
    std::this_thread::sleep_for(5ms);
  }
  for (int k = 1; k <= cell.clients; ++k) {
    int status = *clients[k - 1]->poll();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw CellFailure(fmt::format("client {} failed ({}): {}", k, netem::describe_wait_status(status),
                                    log_tail(files.client_log(k))));
    try {
      results.records.push_back(CallRecord::read_file(files.client_record(k)));
    } catch (const std::exception& e) {
      throw CellFailure(fmt::format("cannot read client {}'s call record: {}", k, e.what()));
    }
  }
  return results;
}

}  // namespace rpclab::harness
