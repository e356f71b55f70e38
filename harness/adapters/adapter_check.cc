#include "harness/adapters/adapter_check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <thread>

#include "client/call_record.h"
#include "client/call_record_header.h"
#include "harness/adapters/adapter_build.h"
#include "harness/dependability/dependability_trial.h"
#include "harness/placement/cell_processes.h"
#include "harness/run/trial_run.h"
#include "netem/topology/capabilities.h"
#include "process/child_process.h"
#include "server/journal_reader.h"
#include "server/server_core.h"
#include "transport/transport.h"

namespace rpclab::harness {
namespace {

using namespace std::chrono_literals;
using journal::Record;

constexpr auto kReadyLimit = 20s;
constexpr auto kClientLimit = 30s;
constexpr auto kStopGrace = 10s;

// What a step found wrong: its line says this.
class StepFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool is_exec(const Record& r) { return r.kind == static_cast<uint8_t>(journal::RecordKind::kExecuted); }

std::string call_name(uint32_t client, uint32_t seq) { return fmt::format("client {} seq {}", client, seq); }

// One NEXT run of the adapter's own client: which client, from which seq,
// how many calls.
struct ClientRun {
  uint32_t client = 1;
  uint32_t first_seq = 0;
  uint64_t calls = 1;
  std::vector<std::string> extra;  // more flags (--duration, ...)
};

class Checker {
 public:
  Checker(const AdapterManifest& a, const AdapterCheckOptions& o, std::string dir)
      : a_(a), o_(o), dir_(std::move(dir)), log_(dir_ + "/commands.log") {}

  void build();
  void ready() { start_server(); }
  void ledger();
  void kill();
  void garbage();
  void timeout();
  void sigterm();
  void stop();
  // Each "" when it ran and passed; the reason when it was skipped.
  std::string at_most_once();
  std::string cell();

 private:
  std::string journal() const { return dir_ + "/" + std::string(kJournalLinesName); }
  std::string server_log() const { return fmt::format("{}/server-{}.log", dir_, lives_); }
  std::string record_path(int n) const { return fmt::format("{}/client-{}.rec", dir_, n); }
  void start_server(const std::string& journal_path = "", const std::vector<std::string>& extra = {});
  // Whether a request waits, unread, at the (stopped) server's port.
  bool request_waiting() const;
  // Asks `run` for --retry-policy app with `retries` when the manifest
  // lists it; whether it did.
  bool with_app_retry(ClientRun& run, int retries) const;
  std::unique_ptr<process::ChildProcess> start_client(const ClientRun& run, int n);
  CallRecord finish_client(process::ChildProcess& client, int n, bool stopped);
  CallRecord run_client(const ClientRun& run) {
    int n = ++clients_;
    auto client = start_client(run, n);
    return finish_client(*client, n, false);
  }
  void expect_all_ok(const CallRecord& record, const ClientRun& run) const;
  std::vector<Record> read_records() const;
  void send_garbage() const;

  const AdapterManifest& a_;
  const AdapterCheckOptions& o_;
  std::string dir_;
  process::CommandLog log_;
  std::unique_ptr<process::ChildProcess> server_;
  uint16_t port_ = 0;
  int lives_ = 0;
  int clients_ = 0;
};

void Checker::build() {
  if (!o_.build) {
    for (const std::string& program : a_.programs())
      if (::access(program.c_str(), X_OK) != 0) throw StepFailure(program + " is missing (and --no-build was given)");
    return;
  }
  if (std::string why = build_adapter(a_, log_); !why.empty()) throw StepFailure(why);
}

void Checker::start_server(const std::string& journal_path, const std::vector<std::string>& extra) {
  ++lives_;
  std::string ready = dir_ + "/server.ready";
  ::unlink(ready.c_str());
  std::vector<std::string> argv = a_.server;
  argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--journal", journal_path.empty() ? journal() : journal_path,
                           "--ready-file", ready});
  argv.insert(argv.end(), extra.begin(), extra.end());
  process::SpawnOptions spawn;
  spawn.stdout_path = spawn.stderr_path = server_log();
  try {
    server_ = std::make_unique<process::ChildProcess>(argv, spawn, log_);
  } catch (const std::exception& e) {
    throw StepFailure(std::string("the server cannot start: ") + e.what());
  }
  auto deadline = std::chrono::steady_clock::now() + kReadyLimit;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(ready);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (in && !j.is_discarded()) {
      // not a record: the ready file docs/adapters.md asks a server for
      if (!j.is_object() || !j.contains("port") || !j["port"].is_number_unsigned() || j["port"].get<uint64_t>() == 0 ||
          j["port"].get<uint64_t>() > 65535)
        throw StepFailure("the ready file " + ready + " holds " + j.dump() + ", not {\"port\":N,\"pid\":P}");
      port_ = j["port"].get<uint16_t>();  // not a record: as above
      return;
    }
    if (auto status = server_->poll())
      throw StepFailure(fmt::format("the server exited before it was ready ({}): {}",
                                    process::describe_wait_status(*status), log_tail(server_log())));
    if (o_.stop && o_.stop->load()) throw StepFailure("interrupted");
    std::this_thread::sleep_for(10ms);
  }
  throw StepFailure(fmt::format("no ready file within {} s (it must write {{\"port\":N,\"pid\":P}} to --ready-file "
                                "once it serves): {}", kReadyLimit.count(), log_tail(server_log())));
}

std::unique_ptr<process::ChildProcess> Checker::start_client(const ClientRun& run, int n) {
  std::vector<std::string> argv = a_.client;
  argv.insert(argv.end(), {"--server", fmt::format("127.0.0.1:{}", port_), "--calls", std::to_string(run.calls),
                           "--client-id", std::to_string(run.client), "--first-seq", std::to_string(run.first_seq),
                           "--op", "next", "--size", "0", "--warmup", "0", "--connect", "persistent", "--timeout",
                           "5000", "--record", fmt::format("{}/client-{}.rec", dir_, n)});
  argv.insert(argv.end(), run.extra.begin(), run.extra.end());
  process::SpawnOptions spawn;
  spawn.stdout_path = spawn.stderr_path = fmt::format("{}/client-{}.log", dir_, n);
  try {
    return std::make_unique<process::ChildProcess>(argv, spawn, log_);
  } catch (const std::exception& e) {
    throw StepFailure(std::string("the client cannot start: ") + e.what());
  }
}

CallRecord Checker::finish_client(process::ChildProcess& client, int n, bool stopped) {
  std::string log = fmt::format("{}/client-{}.log", dir_, n);
  std::optional<int> status = client.wait_for(kClientLimit);
  if (!status) throw StepFailure(fmt::format("the client ran longer than {} s: {}", kClientLimit.count(), log_tail(log)));
  bool ran = WIFEXITED(*status) && (WEXITSTATUS(*status) == 0 || (stopped && WEXITSTATUS(*status) == 1));
  if (!ran) throw StepFailure(fmt::format("the client {}: {}", process::describe_wait_status(*status), log_tail(log)));
  try {
    return CallRecord::read_file(fmt::format("{}/client-{}.rec", dir_, n));
  } catch (const std::exception& e) {
    throw StepFailure(std::string("its call record does not read (docs/results-format.md, Call records): ") + e.what());
  }
}

void Checker::expect_all_ok(const CallRecord& record, const ClientRun& run) const {
  if (record.calls.size() != run.calls)
    throw StepFailure(fmt::format("the client recorded {} calls of the {} asked", record.calls.size(), run.calls));
  for (size_t i = 0; i < record.calls.size(); ++i) {
    const CallEntry& c = record.calls[i];
    if (c.seq != run.first_seq + i)
      throw StepFailure(fmt::format("the client's call {} has seq {}, and --first-seq {} asked for {}", i, c.seq,
                                    run.first_seq, run.first_seq + i));
    if (c.kind != ErrorKind::kOk)
      throw StepFailure(fmt::format("{} failed: {} {}", call_name(run.client, c.seq), error_kind_name(c.kind),
                                    record.detail(c)));
  }
}

std::vector<Record> Checker::read_records() const {
  try {
    return read_journal_records(journal());
  } catch (const std::exception& e) {
    throw StepFailure(std::string("the journal does not read: ") + e.what());
  }
}

// Client 1: 0..4, then 3..4 again (repeats), then 10..11 (a gap); client 2:
// 0..2. Each journal line must say what ServerCore::next says of the same
// calls in the same order.
void Checker::ledger() {
  std::vector<ClientRun> runs = {{1, 0, 5, {}}, {1, 3, 2, {}}, {1, 10, 2, {}}, {2, 0, 3, {}}};
  ServerCore reference;
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, NextReply>> want;
  for (const ClientRun& run : runs) {
    expect_all_ok(run_client(run), run);
    for (uint32_t s = run.first_seq; s < run.first_seq + run.calls; ++s)
      want.push_back({{run.client, s}, reference.next(run.client, s)});
  }
  std::vector<Record> got;
  for (const Record& r : read_records())
    if (is_exec(r)) got.push_back(r);
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    const Record& r = got[i];
    auto [ids, reply] = want[i];
    if (r.client_id != ids.first || r.seq != ids.second)
      throw StepFailure(fmt::format("exec line {} is {}, and the calls sent were {} next", i + 1,
                                    call_name(r.client_id, r.seq), call_name(ids.first, ids.second)));
    auto differs = [&](const char* field, uint32_t have, uint32_t should) {
      if (have != should)
        throw StepFailure(fmt::format("exec line {} ({}): {} {}, and ServerCore's next() gives {}", i + 1,
                                      call_name(r.client_id, r.seq), field, have, should));
    };
    differs("times_executed", r.times_executed, reply.times_executed);
    differs("expected_seq", r.expected_seq, reply.expected_seq);
    differs("status", r.status, static_cast<uint32_t>(reply.status));
  }
  if (got.size() != want.size())
    throw StepFailure(fmt::format("the journal holds {} exec lines for the {} calls made (one per execution, "
                                  "written before the reply)", got.size(), want.size()));
  try {
    Ledger ledger = read_journal_ledger(journal());
    if (ledger.mismatches(1) != 3 || ledger.count(1, 3) != 2 || ledger.count(1, 7) != 0)
      throw StepFailure("the ledger read from the journal is not the one the calls make");
  } catch (const JournalError& e) {
    throw StepFailure(e.what());
  }
}

// A client calls; the server is SIGKILLed under it; every call the client
// saw succeed must be in the journal; a server started again on the same
// journal must carry its counter over.
void Checker::kill() {
  constexpr uint32_t kClient = 3;
  constexpr size_t kBeforeKill = 100;
  ClientRun run{kClient, 0, 1000000, {"--duration", "20000", "--timeout", "2000"}};
  int n = ++clients_;
  auto client = start_client(run, n);
  auto count = [&] {
    size_t c = 0;
    try {
      for (const Record& r : read_journal_records(journal())) c += is_exec(r) && r.client_id == kClient;
    } catch (const std::exception&) {
      // a line being written: read again on the next pass
    }
    return c;
  };
  auto deadline = std::chrono::steady_clock::now() + 15s;
  while (count() < kBeforeKill) {
    if (client->poll()) throw StepFailure("the client ended before the server was killed: " +
                                          log_tail(fmt::format("{}/client-{}.log", dir_, n)));
    if (std::chrono::steady_clock::now() > deadline)
      throw StepFailure(fmt::format("fewer than {} exec lines of client {} within 15 s", kBeforeKill, kClient));
    std::this_thread::sleep_for(5ms);
  }
  server_->signal(SIGKILL);
  server_->wait_for(kStopGrace);
  client->signal(SIGTERM);
  CallRecord record = finish_client(*client, n, true);
  std::map<uint32_t, uint32_t> ran;
  uint32_t highest = 0;
  for (const Record& r : read_records())
    if (is_exec(r) && r.client_id == kClient) ++ran[r.seq], highest = std::max(highest, r.seq);
  size_t ok = 0;
  for (const CallEntry& c : record.calls) {
    if (c.kind != ErrorKind::kOk) continue;
    ++ok;
    if (!ran.count(c.seq))
      throw StepFailure(fmt::format("{} succeeded, and after SIGKILL it is not in the journal: the line must be "
                                    "written before the reply", call_name(kClient, c.seq)));
  }
  if (ok < kBeforeKill / 2) throw StepFailure(fmt::format("only {} calls succeeded before the kill", ok));
  start_server();
  ClientRun after{kClient, highest + 1, 1, {}};
  expect_all_ok(run_client(after), after);
  std::vector<Record> records = read_records();
  const Record& last = records.back();
  if (!is_exec(last) || last.client_id != kClient || last.seq != highest + 1)
    throw StepFailure(fmt::format("after the restart the journal's last line is not {}", call_name(kClient, highest + 1)));
  if (last.status != 0 || last.expected_seq != highest + 1)
    throw StepFailure(fmt::format("after the restart the server expected seq {} of client {}, and its journal ran up "
                                  "to {}: a server started on an existing journal must rebuild its counter from it",
                                  last.expected_seq, kClient, highest));
  try {
    read_journal_ledger(journal());
  } catch (const std::exception& e) {
    throw StepFailure(std::string("after the restart: ") + e.what());
  }
}

void Checker::send_garbage() const {
  std::mt19937 random(24);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port_);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < 20; ++i) {
    std::string bytes(64 + random() % 4000, '\0');
    for (char& b : bytes) b = static_cast<char>(random());
    int fd = ::socket(AF_INET, (a_.datagram ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    if (fd < 0) throw StepFailure("cannot make a socket");
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) == 0)
      (void)!::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ::close(fd);
  }
}

void Checker::garbage() {
  send_garbage();
  ClientRun run{4, 0, 1, {}};
  auto died = [this](const std::string& when) {
    // A server that dies of garbage may take a moment: its threads read it.
    if (auto status = server_->wait_for(2s))
      throw StepFailure(fmt::format("the server died of random bytes {}({}): {}", when,
                                    process::describe_wait_status(*status), log_tail(server_log())));
  };
  CallRecord record;
  try {
    record = run_client(run);
    expect_all_ok(record, run);
  } catch (const StepFailure& e) {
    died("");
    throw StepFailure(std::string("after random bytes, a call fails: ") + e.what());
  }
  if (auto status = server_->poll())
    throw StepFailure(fmt::format("the server died after random bytes ({})", process::describe_wait_status(*status)));
}

// Stopped (SIGSTOP) while a step runs, continued however the step ends.
class Stall {
 public:
  explicit Stall(process::ChildProcess& p) : p_(p) { p_.signal(SIGSTOP); }
  ~Stall() { p_.signal(SIGCONT); }
  Stall(const Stall&) = delete;
  Stall& operator=(const Stall&) = delete;

 private:
  process::ChildProcess& p_;
};

// /proc/net/tcp (or udp): a socket at the server's port holding bytes
// nobody read. The server is stopped, so they are a client's request.
bool Checker::request_waiting() const {
  std::ifstream in(a_.datagram ? "/proc/net/udp" : "/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // the column names
  while (std::getline(in, line)) {
    unsigned local_port = 0, state = 0, tx = 0, rx = 0;
    if (std::sscanf(line.c_str(), " %*d: %*8x:%x %*8x:%*x %x %x:%x", &local_port, &state, &tx, &rx) != 4) continue;
    // TCP 01 established (accepted or still in the listen queue), UDP 07.
    if (local_port == port_ && state == (a_.datagram ? 0x07u : 0x01u) && rx > 0) return true;
  }
  return false;
}

bool Checker::with_app_retry(ClientRun& run, int retries) const {
  if (!a_.takes(RetryPolicy::kApp)) return false;
  run.extra.insert(run.extra.end(), {"--retry-policy", "app", "--app-retries", std::to_string(retries),
                                     "--app-backoff", "10", "--app-backoff-max", "10"});
  return true;
}

// The server stopped (SIGSTOP) past the client's --timeout: the call gets
// no reply in time, whatever the stack calls it (gRPC's DEADLINE_EXCEEDED,
// tonic's CANCELLED "Timeout expired", a socket's EAGAIN), and the record
// must say `timeout`, the kind the classes and the app retries read; with
// --retry-policy app the call goes out once more.
void Checker::timeout() {
  constexpr uint32_t kClient = 5;
  ClientRun run{kClient, 0, 1, {"--timeout", "500"}};
  bool app = with_app_retry(run, 1);
  int n = ++clients_;
  CallRecord record;
  {
    Stall stall(*server_);
    auto client = start_client(run, n);
    record = finish_client(*client, n, true);
  }
  if (record.calls.size() != 1)
    throw StepFailure(fmt::format("{}: {} call lines for the 1 call asked", record_path(n), record.calls.size()));
  const CallEntry& c = record.calls[0];
  std::string where = fmt::format("{} line 2 ({})", record_path(n), call_name(kClient, c.seq));
  if (c.kind != ErrorKind::kTimeout)
    throw StepFailure(fmt::format("{}: {} \"{}\", and the server was stopped (SIGSTOP) past --timeout 500: a call "
                                  "with no reply in time is `timeout` (docs/adapters.md, Error kinds)",
                                  where, error_kind_name(c.kind), record.detail(c)));
  if (!app) return;
  if (c.attempts != 2)
    throw StepFailure(fmt::format("{}: {} attempt(s), and with --retry-policy app --app-retries 1 a timed-out call "
                                  "goes out once more: 2", where, c.attempts));
  for (const AttemptEntry& at : record.attempts)
    if (at.kind != ErrorKind::kTimeout)
      throw StepFailure(fmt::format("{} line {} (attempt {}): {} \"{}\", and the server was still stopped: `timeout`",
                                    record_path(n), 2 + at.number, at.number, error_kind_name(at.kind),
                                    record.detail(at)));
}

// SIGTERM while a call waits on the stopped server: the client starts no
// other call or attempt, ends within its --timeout and 5 s, and its
// record holds the call cut short as `timeout` (docs/adapters.md, the
// SIGTERM rule): it was sent and may have run, and a journaled execution
// with no call line would be one no client made.
void Checker::sigterm() {
  constexpr uint32_t kClient = 6;
  constexpr auto kTimeout = 3s;
  ClientRun run{kClient, 0, 3, {"--timeout", std::to_string(std::chrono::milliseconds(kTimeout).count())}};
  with_app_retry(run, 3);
  int n = ++clients_;
  CallRecord record;
  {
    Stall stall(*server_);
    auto client = start_client(run, n);
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!request_waiting()) {
      if (client->poll())
        throw StepFailure("the client ended before its first call reached the stopped server: " +
                          log_tail(fmt::format("{}/client-{}.log", dir_, n)));
      if (std::chrono::steady_clock::now() > deadline)
        throw StepFailure(fmt::format("no request of {} reached the stopped server's port within 10 s",
                                      call_name(kClient, 0)));
      if (o_.stop && o_.stop->load()) throw StepFailure("interrupted");
      std::this_thread::sleep_for(5ms);
    }
    client->signal(SIGTERM);
    if (!client->wait_for(kTimeout + 5s))
      throw StepFailure(fmt::format("the client did not end within {} s of SIGTERM (its --timeout and 5 s)",
                                    std::chrono::seconds(kTimeout + 5s).count()));
    record = finish_client(*client, n, true);
  }
  if (record.calls.empty())
    throw StepFailure(fmt::format("{} line 2: missing, and {} was in flight when SIGTERM came: a call cut short is "
                                  "recorded, as `timeout` (docs/adapters.md, SIGTERM)", record_path(n),
                                  call_name(kClient, 0)));
  const CallEntry& c = record.calls[0];
  std::string where = fmt::format("{} line 2 ({})", record_path(n), call_name(kClient, c.seq));
  if (c.kind != ErrorKind::kTimeout)
    throw StepFailure(fmt::format("{}: {} \"{}\", and it was in flight on the stopped server when SIGTERM came: "
                                  "`timeout` (docs/adapters.md, SIGTERM)", where, error_kind_name(c.kind),
                                  record.detail(c)));
  if (c.attempts != 1)
    throw StepFailure(fmt::format("{}: {} attempts: after SIGTERM no attempt starts", where, c.attempts));
  if (record.calls.size() != 1)
    throw StepFailure(fmt::format("{}: {} call lines: after SIGTERM no call starts", record_path(n),
                                  record.calls.size()));
  if (!header_of(record).interrupted)
    throw StepFailure(fmt::format("{} line 1: \"interrupted\" is not true, and SIGTERM stopped it after 1 of 3 calls",
                                  record_path(n)));
}

// With --at-most-once, on a server and journal of its own: client 7 runs
// seqs 0..2, repeats 2 (answered from the table: a `table` line with the
// stored reply, nothing run) and sends 1 (older: a `stale` line, refused).
// Each line must be the one ServerCore with its table gives, in order.
std::string Checker::at_most_once() {
  if (!a_.at_most_once) return "its manifest does not claim at_most_once";
  constexpr uint32_t kClient = 7;
  std::string path = dir_ + "/at-most-once.jsonl";
  start_server(path, {"--at-most-once"});
  std::vector<ClientRun> runs = {{kClient, 0, 3, {}}, {kClient, 2, 1, {}}, {kClient, 1, 1, {}}};
  ServerCoreOptions amo;
  amo.at_most_once = true;
  ServerCore reference(amo);
  std::vector<std::pair<Record, const char*>> want;
  for (const ClientRun& run : runs) {
    int n = ++clients_;
    auto client = start_client(run, n);
    finish_client(*client, n, true);  // a stale call's reply may be a failure to its client
    for (uint32_t s = run.first_seq; s < run.first_seq + run.calls; ++s) {
      uint64_t table = reference.counters().answered_from_table, stale = reference.counters().refused_stale;
      NextReply reply = reference.next(kClient, s);
      const char* kind = reference.counters().answered_from_table > table ? "table"
                         : reference.counters().refused_stale > stale     ? "stale"
                                                                        : "exec";
      Record r{};
      r.client_id = kClient;
      r.seq = s;
      r.status = static_cast<uint32_t>(reply.status);
      r.expected_seq = reply.expected_seq;
      r.times_executed = reply.times_executed;
      want.push_back({r, kind});
    }
  }
  int status = server_->stop(kStopGrace);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw StepFailure(fmt::format("on SIGTERM it must exit with status 0; it {}", process::describe_wait_status(status)));
  std::vector<Record> got;
  try {
    got = read_journal_records(path);
  } catch (const std::exception& e) {
    throw StepFailure(std::string("the journal does not read: ") + e.what());
  }
  static const std::map<uint8_t, const char*> kKinds = {
      {static_cast<uint8_t>(journal::RecordKind::kExecuted), "exec"},
      {static_cast<uint8_t>(journal::RecordKind::kAnsweredFromTable), "table"},
      {static_cast<uint8_t>(journal::RecordKind::kRefusedStale), "stale"}};
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& [w, kind] = want[i];
    auto line = [&](const Record& r, const char* k) {
      return fmt::format("{{\"{}\":[{},{},{},{},{}]}}", k, r.client_id, r.seq, r.status, r.expected_seq,
                         r.times_executed);
    };
    if (i >= got.size())
      throw StepFailure(fmt::format("{}: call line {} is missing: {} must be journaled as {}", path, i + 1,
                                    call_name(w.client_id, w.seq), line(w, kind)));
    const Record& r = got[i];
    auto k = kKinds.find(r.kind);
    const char* have = k == kKinds.end() ? "?" : k->second;
    if (std::string_view(have) != kind || r.client_id != w.client_id || r.seq != w.seq || r.status != w.status ||
        r.expected_seq != w.expected_seq || r.times_executed != w.times_executed)
      throw StepFailure(fmt::format("{}: call line {} is {}, and ServerCore with its table gives {} (docs/adapters.md, "
                                    "At most once)", path, i + 1, line(r, have), line(w, kind)));
  }
  if (got.size() != want.size())
    throw StepFailure(fmt::format("{}: {} call lines for the {} calls made", path, got.size(), want.size()));
  return "";
}

void Checker::stop() {
  int status = server_->stop(kStopGrace);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw StepFailure(fmt::format("on SIGTERM it must exit with status 0 within {} s; it {}: {}", kStopGrace.count(),
                                  process::describe_wait_status(status), log_tail(server_log())));
}

std::string Checker::cell() {
  netem::Capabilities caps = netem::probe_capabilities();
  if (!caps.root || !caps.netns) return "needs root and network namespaces (as `make test` has)";
  if (!find_transport(a_.name)) add_adapter_rows({{a_}, {}});  // built by this check
  CellConfig cell;
  cell.experiment = "dependability";
  cell.transport = a_.name;
  // Two namespaces and a veth pair: duplication on the link, by netem or
  // nftables, whichever this kernel has (the trial says which, or why
  // neither: then this step is skipped).
  cell.topology = netem::TopologyKind::kTwoHost;
  cell.clients = 2;
  cell.calls_per_client = 200;
  cell.timeout_ms = 2000;
  cell.faults.dup_pct = 5;
  cell.faults.seed = 24;
  TrialPlace place{1, 1, 1, dir_ + "/cell/trial-1"};
  std::filesystem::create_directories(place.dir);
  CellEnvironment env;
  env.run_id = "adapter-check";
  env.bin_dir = o_.bin_dir;
  env.caps = caps;
  env.stop = o_.stop;
  env.cell_time_limit_s = 60;
  process::CommandLog log(dir_ + "/cell/commands.log");
  TrialRecord trial = run_trial(run_dependability_trial, cell, place, env, log);
  if (trial.status == "skipped") return trial.reason;
  if (!trial.ok()) throw StepFailure("the trial failed: " + trial.reason);
  const std::optional<ClassCounts>& c = trial.dependability.classes;
  if (!c) throw StepFailure("the trial has no classes");
  uint64_t sum = c->correct + c->silent_loss + c->duplicate_calls + c->indeterminate + c->clean_failure;
  if (c->calls != cell.total_calls() || sum != c->calls)
    throw StepFailure(fmt::format("the classes do not add up: {} calls made of {}, and correct {} + silent loss {} + "
                                  "duplicates {} + indeterminate {} + clean failure {} = {}", c->calls,
                                  cell.total_calls(), c->correct, c->silent_loss, c->duplicate_calls,
                                  c->indeterminate, c->clean_failure, sum));
  if (c->unissued_executions)
    throw StepFailure(fmt::format("the journal holds {} executions no client made", c->unissued_executions));
  return "";
}

}  // namespace

bool check_adapter(const AdapterManifest& adapter, const AdapterCheckOptions& options, std::FILE* out) {
  std::string dir = options.dir;
  if (dir.empty()) {
    std::string tmpl = "/tmp/rpclab-adapter-check-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a folder under /tmp");
    dir = tmpl;
  }
  std::filesystem::create_directories(dir);
  Checker checker(adapter, options, dir);
  std::fprintf(out, "rpclab adapter check %s (%s), files in %s%s\n", adapter.name.c_str(), adapter.file.c_str(),
               dir.c_str(), options.dir.empty() ? " (removed if it passes)" : "");
  struct Step {
    const char* name;
    const char* what;
    std::function<std::string()> run;
  };
  auto plain = [](std::function<void()> f) { return [f] { f(); return std::string(); }; };
  std::vector<Step> steps = {
      {"build", "its build command makes its programs", plain([&] { checker.build(); })},
      {"ready", "its server writes the ready file", plain([&] { checker.ready(); })},
      {"ledger", "a known sequence, repeats and a gap, journaled as ServerCore runs it", plain([&] { checker.ledger(); })},
      {"kill", "SIGKILL loses no answered call; a restart continues the journal", plain([&] { checker.kill(); })},
      {"garbage", "random bytes to its port, and it still serves", plain([&] { checker.garbage(); })},
      {"timeout", "its server stopped past --timeout: the record says timeout (and app retries it)",
       plain([&] { checker.timeout(); })},
      {"sigterm", "SIGTERM mid-call: that call recorded as timeout, no other started",
       plain([&] { checker.sigterm(); })},
      {"stop", "SIGTERM ends it with status 0", plain([&] { checker.stop(); })},
      {"table", "--at-most-once: a repeat answered from the table, an older seq refused",
       [&] { return checker.at_most_once(); }},
      {"cell", "a dependability trial, 5% duplication: the classes add up", [&] {
         if (!options.cell) return std::string("not asked for (--no-cell)");
         return checker.cell();
       }},
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    try {
      std::string skipped = steps[i].run();
      if (skipped.empty())
        std::fprintf(out, "ok    %-8s %s\n", steps[i].name, steps[i].what);
      else
        std::fprintf(out, "skip  %-8s %s\n", steps[i].name, skipped.c_str());
    } catch (const std::exception& e) {
      std::fprintf(out, "FAIL  %-8s %s\n", steps[i].name, e.what());
      for (size_t j = i + 1; j < steps.size(); ++j) std::fprintf(out, "-     %-8s not run\n", steps[j].name);
      std::fflush(out);
      return false;
    }
    std::fflush(out);
  }
  // A folder of its own making, with nothing wrong to look into.
  if (options.dir.empty()) std::filesystem::remove_all(dir);
  return true;
}

}  // namespace rpclab::harness
