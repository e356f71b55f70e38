// Client retry policies on the real stack, for every transport in the
// table: rpclab-client with --retry-policy app against a real rpclab-server
// that is stopped (SIGSTOP) so a call times out, or SIGKILLed and restarted
// on its port by a server-crash event, so a connection breaks. The record
// shows every attempt of the call that was retried; the server's ledger
// shows what the retries cost. And `library` is refused where the
// transport's row says it means nothing.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "common/atomic_file.h"
#include "netem/events/event_runner.h"
#include "rpc_test_util.h"
#include "support/client_process.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/wait.h"
#include "netem/config/fault_profile.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kClientId = 5;

std::vector<std::string> app_client_args(const std::string& transport, const std::string& server, int calls,
                                         int timeout_ms, int retries, int backoff_max_ms) {
  return {bin("rpclab-client"), "--transport", transport, "--server", server, "--client-id",
          std::to_string(kClientId), "--calls", std::to_string(calls), "--timeout", std::to_string(timeout_ms),
          "--retry-policy", "app", "--app-retries", std::to_string(retries), "--app-backoff", "20",
          "--app-backoff-max", std::to_string(backoff_max_ms)};
}

// The inodes of the TCP and UDP sockets in `pid`'s network namespace.
std::set<std::string> inet_socket_inodes(pid_t pid) {
  std::set<std::string> out;
  for (const char* table : {"tcp", "tcp6", "udp", "udp6"}) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/net/" + table);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string f;
      for (int i = 0; i < 10 && fields >> f; ++i) {
      }
      out.insert("socket:[" + f + "]");  // the 10th field: the inode
    }
  }
  return out;
}

// The TCP and UDP sockets a process holds now, as "socket:[inode]". Not
// its other sockets: gRPC makes socketpairs of its own (wake-up fds) at
// times of its choosing, which are no new handle.
std::set<std::string> sockets_of(pid_t pid) {
  std::set<std::string> out, inet = inet_socket_inodes(pid);
  std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      char target[256] = {};
      ssize_t n = ::readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1);
      if (n > 0 && inet.count(std::string(target, n))) out.insert(std::string(target, n));
    }
    ::closedir(d);
  }
  return out;
}

// Waits until `pid` holds a socket it did not hold when first seen with
// one: a new handle for its next attempt. (gRPC may keep the old channel's
// socket open a while after the channel is gone, so a closed socket is no
// sign.)
bool wait_for_new_handle(pid_t pid, Child& client, std::chrono::seconds limit) {
  std::set<std::string> first;
  bool made = false;
  wait_until(
      [&] {
        std::set<std::string> now = sockets_of(pid);
        if (first.empty()) first = now;
        for (const auto& s : now) made = made || !first.count(s);
        return made || client.exit_code().has_value();
      },
      limit, 2ms);
  return made;
}

std::string describe_attempts(const CallRecord& r, size_t call) {
  std::string out;
  for (const AttemptEntry& a : r.attempts)
    if (a.call == call) out += std::string(out.empty() ? "" : ", ") + std::string(error_kind_name(a.kind));
  return out;
}

class RetryPolicyE2E : public testing::TestWithParam<std::string> {};

// The server is stopped before the client's first call: that call times
// out, the client drops its handle, waits, makes a new one and sends the
// same seq again; the server is resumed while the client waits on its
// second attempt, and answers it. On resuming, the server also finds the
// first attempt's request waiting (a datagram, or bytes on a connection the
// client has closed) and runs it: the ledger says how many times seq 0 ran.
TEST_P(RetryPolicyE2E, AppRetryAfterATimeoutIsInTheRecord) {
  const std::string transport = GetParam();
  ServerProcess server(transport);
  TempDir dir;
  ASSERT_EQ(::kill(server.pid(), SIGSTOP), 0);
  std::string record = dir.file("client.record");
  auto args = app_client_args(transport, server.address(), 5, 500, 10, 100);
  args.insert(args.end(), {"--record", record});
  Child client(args, dir.file("client.log"));
  bool second = wait_for_new_handle(client.pid(), client, 30s);
  ::kill(server.pid(), SIGCONT);
  ASSERT_TRUE(second) << "the client never made a second handle: " << read_whole_file(dir.file("client.log"));
  std::optional<int> code;
  wait_until([&] { return (code = client.exit_code()).has_value(); }, 60s, 5ms);
  ASSERT_EQ(code, 0) << read_whole_file(dir.file("client.log"));
  CallRecord r = CallRecord::read_file(record);
  ASSERT_EQ(r.calls.size(), 5u);
  EXPECT_GE(r.calls[0].attempts, 2u);
  ASSERT_FALSE(r.attempts.empty());
  EXPECT_EQ(r.attempts.front().call, 0u);
  EXPECT_EQ(r.attempts.front().kind, ErrorKind::kTimeout) << describe_attempts(r, 0);
  for (const CallEntry& c : r.calls) EXPECT_EQ(c.kind, ErrorKind::kOk) << "seq " << c.seq << ": " << r.detail(c);
  EXPECT_EQ(r.header["retry"]["policy"], "app");
  Ledger ledger = server.stop();
  uint32_t ran = ledger.count(kClientId, 0);
  EXPECT_GE(ran, 1u);
  EXPECT_LE(ran, r.calls[0].attempts);
  std::cout << "[ measured ] " << transport << ": seq 0 attempts " << describe_attempts(r, 0) << "; the server ran it "
            << ran << " time(s)\n";
}

// A server on a fixed port that a server-crash event can kill and start
// again where it was. The port lies below the ephemeral range: clients that
// make a new socket on every retry are given ephemeral ports, and one could
// otherwise take the dead server's port.
class RestartableServer : public netem::ServerControl {
 public:
  RestartableServer(const std::string& transport, const TempDir& dir) : transport_(transport), dir_(dir) {
    std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
    int low = 32768;
    range >> low;
    for (port_ = low - 1 - ::getpid() % 3000; !start(); --port_) {
    }
  }
  uint16_t port() const { return static_cast<uint16_t>(port_); }
  pid_t pid() const { return child_->pid(); }
  void stop() { child_->stop(SIGTERM); }

  nlohmann::json kill() override {
    pid_t pid = child_->pid();
    child_->stop(SIGKILL);
    return {{"pid", pid}};
  }
  nlohmann::json restart() override {
    auto began = Clock::now();
    if (!start()) throw std::runtime_error("the server did not restart on port " + std::to_string(port_));
    return {{"pid", child_->pid()}, {"ready_ms", std::chrono::duration<double, std::milli>(Clock::now() - began).count()}};
  }
  // NEXT calls served since its last start: SIGUSR1, then a fresh stats file.
  uint64_t next_calls() {
    int want = ++stats_generation_;
    ::kill(child_->pid(), SIGUSR1);
    uint64_t calls = 0;
    wait_until(
        [&] {
          try {
            auto stats = nlohmann::json::parse(read_whole_file(dir_.file("stats.json")));
            calls = stats.value("next_calls", uint64_t{0});
            return stats.value("generation", 0) >= want;
          } catch (const std::exception&) {  // not written yet
            return false;
          }
        },
        1s, 2ms);
    return calls;
  }
  nlohmann::json pause() override { return {{"signal", ::kill(child_->pid(), SIGSTOP) == 0 ? "SIGSTOP" : "failed"}}; }
  nlohmann::json resume() override { return {{"signal", ::kill(child_->pid(), SIGCONT) == 0 ? "SIGCONT" : "failed"}}; }

 private:
  // Starts the server and waits for its ready file; false when it exits
  // first (its port in use).
  bool start() {
    std::string ready = dir_.file("ready.json");
    ::unlink(ready.c_str());
    ::unlink(dir_.file("stats.json").c_str());
    stats_generation_ = 0;
    child_ = std::make_unique<Child>(
        std::vector<std::string>{bin("rpclab-server"), "--transport", transport_, "--listen",
                                 "127.0.0.1:" + std::to_string(port_), "--ready-file", ready, "--ledger",
                                 dir_.file("ledger.bin"), "--stats-file", dir_.file("stats.json")},
        dir_.file("server.log"));
    bool ready_now = false;
    if (!wait_until([&] { return (ready_now = ::access(ready.c_str(), R_OK) == 0) || child_->exit_code(); }, 20s, 5ms))
      throw std::runtime_error(transport_ + " server did not report ready in time");
    return ready_now;
  }

  std::string transport_;
  const TempDir& dir_;
  int port_ = 0;
  int stats_generation_ = 0;
  std::unique_ptr<Child> child_;
};

// A server-crash event, driven by an EventRunner from this thread's wait
// loop as the harness will, kills the server while the client is busy and
// restarts it 500 ms later on its port: the call it broke is retried on new
// handles until the server is back, and every call ends ok. The client is
// stopped (SIGTERM: it writes what it has) once the restarted server has
// served 100 calls.
TEST_P(RetryPolicyE2E, AppRetryAcrossAServerCrashAndRestart) {
  const std::string transport = GetParam();
  TempDir dir;
  RestartableServer server(transport, dir);
  std::string record = dir.file("client.record");
  auto args = app_client_args(transport, "127.0.0.1:" + std::to_string(server.port()), 2000000, 1000, 40, 200);
  args.insert(args.end(), {"--record", record});
  Child client(args, dir.file("client.log"));
  process::CommandLog log;
  netem::EventRunner runner(netem::parse_profile("event = server-crash at=0s for=500ms\n", "t"), {nullptr, {&server}},
                            log);
  std::optional<int> code;
  bool started = false, stopping = false;
  for (auto deadline = Clock::now() + 120s; Clock::now() < deadline && !(code = client.exit_code());
       std::this_thread::sleep_for(5ms)) {  // not a wait: the pace of the event runner's poll, as the harness's
    // The crash's clock starts once calls are flowing: 100 served; the
    // client stops once the restarted server has served 100 more. (Asked
    // only then: a stats request to a dead server would hold this loop up.)
    if (!started && server.next_calls() >= 100) {
      runner.start(Clock::now());
      started = true;
    }
    if (started && !stopping && !runner.poll() && server.next_calls() >= 100)
      stopping = ::kill(client.pid(), SIGTERM) == 0;
  }
  runner.finish();
  ASSERT_EQ(code, 0) << read_whole_file(dir.file("client.log"));
  server.stop();
  CallRecord r = CallRecord::read_file(record);
  for (const CallEntry& c : r.calls) ASSERT_EQ(c.kind, ErrorKind::kOk) << "seq " << c.seq << ": " << r.detail(c);
  ASSERT_FALSE(r.attempts.empty()) << "the crash broke no call: " << runner.record();
  const AttemptEntry& first = r.attempts.front();
  EXPECT_NE(first.kind, ErrorKind::kOk);
  EXPECT_EQ(r.attempts.back().kind, ErrorKind::kOk);
  const nlohmann::json& crash = runner.record().at(0);
  std::cout << "[ measured ] " << transport << ": call " << first.call << " of " << r.calls.size() << " took "
            << r.calls[first.call].attempts << " attempts (" << describe_attempts(r, first.call) << "); server down "
            << crash["end_ms"].get<double>() - crash["start_ms"].get<double>() << " ms + restart "
            << crash["end"]["ready_ms"].get<double>() << " ms\n";
}

INSTANTIATE_TEST_SUITE_P(EveryTransport, RetryPolicyE2E, testing::ValuesIn(all_transports()), param_name);

// `library` means the library's own retry turned on: refused, with the
// row's reason, where the library has none to turn on or its retry is
// always on; taken where it is asked for.
TEST(RetryPolicy, LibraryIsRefusedWhereTheRowSaysItMeansNothing) {
  TempDir dir;
  for (const TransportRow& row : transports()) {
    SCOPED_TRACE(std::string(row.name));
    ClientRun run = run_client({"--transport", std::string(row.name), "--server", "127.0.0.1:9", "--calls", "1",
                                "--timeout", "100", "--retry-policy", "library"}, dir);
    if (row.library_retry.kind == LibraryRetry::kOnRequest) {
      EXPECT_NE(run.process.exit_code, 2) << run.process.err;
      EXPECT_EQ(run.record.header["retry"]["policy"], "library");
    } else {
      EXPECT_EQ(run.process.exit_code, 2);
      EXPECT_NE(run.process.err.find("--retry-policy library: " + std::string(row.name)), std::string::npos)
          << run.process.err;
      EXPECT_NE(run.process.err.find(std::string(row.library_retry.what)), std::string::npos) << run.process.err;
    }
  }
}

}  // namespace
}  // namespace rpclab::test
