// A server SIGKILLed 20 times while a client makes NEXT calls, restarted
// each time on the same address and port and the same journal, on every
// transport: every call the client saw succeed is in the ledger derived
// from the journal alone, the join still puts every call in exactly one
// class, and with --at-most-once a client that re-sends the same (client
// id, seq) after an error runs no call twice.
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <iostream>
#include <thread>

#include "common/atomic_file.h"
#include "server/journal_reader.h"
#include "harness/dependability/trial_join.h"
#include "rpc_test_util.h"
#include "support/wait.h"
#include "support/process.h"
#include "support/server_process.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;

constexpr int kKills = 20;
constexpr uint64_t kRecordsBetweenKills = 25;
constexpr uint32_t kClientId = 7;

// What these tests must know of a transport. One that is not named here
// fails: its row says whether its server can restart on the port it had,
// and why, so that is a decision rather than a default.
struct KillRow {
  const char* transport;
  const char* cannot_restart;  // why the server cannot restart on its port; nullptr: it can
};
constexpr KillRow kKillRows[] = {
    // A UDP port is free again as soon as the killed process's socket closes.
    {"sunrpc-udp", nullptr},
    {"raw-udp", nullptr},
    // The killed server's connections linger in TIME_WAIT on its port;
    // bind_socket sets SO_REUSEADDR so a new listener may bind beside them.
    {"sunrpc-tcp", nullptr},
    {"raw-tcp", nullptr},
    // gRPC sets SO_REUSEADDR on its own listeners too.
    {"grpc", nullptr},
    {"grpc-callback-server", nullptr},
    {"grpc-callback", nullptr},
    // Abyss and libmicrohttpd serve on the socket rpclab binds (bind_socket),
    // and so does rpclab's own accept loop for the packet stream.
    {"xmlrpc", nullptr},
    {"xmlrpc-pstream", nullptr},
    {"jsonrpc", nullptr},
};

const KillRow* kill_row(const std::string& transport) {
  for (const KillRow& row : kKillRows)
    if (transport == row.transport) return &row;
  return nullptr;
}

// Timeouts short enough that a call lost with a killed server fails soon.
// Nagle off on each side whose row lets it be turned off, so that the
// clients make progress between kills at loopback speed: with Nagle on,
// xmlrpc-pstream waits out a delayed ACK (about 40 ms) on every call, and
// so does xmlrpc's Abyss server once a client has reconnected after a kill.
ClientOptions kill_test_options(const std::string& transport, uint16_t port) {
  ClientOptions o = client_options(transport, port, is_datagram(transport) ? 300 : 2000);
  if (row_of(transport).takes(kRetryTimeout, Side::kClient)) o.settings.set(kRetryTimeout, 50);
  if (row_of(transport).takes(kTcpNodelay, Side::kClient)) o.settings.set_on(kTcpNodelay);
  return o;
}

std::vector<std::string> client_args(const std::string& transport) {
  ClientOptions o = kill_test_options(transport, 0);
  std::vector<std::string> args = {"--timeout", std::to_string(*o.timeout_ms)};
  if (auto ms = o.settings.get(kRetryTimeout)) args.insert(args.end(), {"--retry-timeout", std::to_string(*ms)});
  for (const std::string& flag : nodelay_flag_on(transport, Side::kClient)) args.push_back(flag);
  return args;
}

// The lowest port the kernel hands out to sockets that bind none.
int ephemeral_low() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768;
  in >> low;
  return low;
}

// A server on a journal, SIGKILLed and restarted where it was.
//
// Its port lies below the ephemeral range. On one host, clients that make a
// new socket after each failure (thousands while the server is down) are
// given ephemeral ports, and one of them can be the dead server's port: the
// restart then fails with "port in use" (seen with raw-udp, whose client
// even connected to itself). Below the range, only a program that asks for
// the port by number can take it.
class CrashingServer {
 public:
  CrashingServer(const std::string& transport, const TempDir& dir, std::vector<std::string> flags)
      : journal_(dir.file("journal.bin")) {
    spec_.transport = transport;
    spec_.args = {"--journal", journal_};
    spec_.args.insert(spec_.args.end(), flags.begin(), flags.end());
    for (const std::string& flag : nodelay_flag_on(transport, Side::kServer)) spec_.args.push_back(flag);
    int first = ephemeral_low() - 1 - static_cast<int>(::getpid() % 4000);
    for (int port = first; !server_ && port > first - 200; --port) {
      spec_.listen = "127.0.0.1:" + std::to_string(port);
      try {
        server_ = std::make_unique<ServerProcess>(spec_);
      } catch (const std::runtime_error& e) {
        if (std::string(e.what()).find("in use") == std::string::npos) throw;
      }
    }
    if (!server_) throw std::runtime_error("no free port below " + std::to_string(first));
  }

  uint16_t port() const { return server_->port(); }
  const std::string& journal() const { return journal_; }

  // Waits until the clients have made progress since the last start: the
  // journal holds kRecordsBetweenKills more slots. With a deadline.
  void wait_for_progress() {
    uint64_t count = journal_reserved(journal_) + kRecordsBetweenKills;
    if (!wait_until([&] { return journal_reserved(journal_) >= count; }, 60s, 1ms))
      throw std::runtime_error("the journal stayed at " + std::to_string(journal_reserved(journal_)) + " of " +
                               std::to_string(count) + " records: " + server_->log());
  }

  void kill() {
    server_->kill();
    server_.reset();
  }
  // A new server on the same address, port and journal; returns once its
  // ready file is written.
  void restart() { server_ = std::make_unique<ServerProcess>(spec_); }

  // kKills times: once the clients have made progress, SIGKILL and restart.
  void crash_repeatedly() {
    for (int k = 0; k < kKills; ++k) {
      wait_for_progress();
      kill();
      restart();
    }
    wait_for_progress();
  }

  Ledger stop() { return server_->stop(); }

  // The last seq of kClientId the journal says ran (0 if none).
  uint32_t last_executed() const {
    JournalFile file(journal_);
    check_journal(file.bytes());
    uint32_t last = 0;
    for_each_record(file.bytes(), [&](const journal::Record& r) {
      if (r.client_id == kClientId && r.kind == static_cast<uint8_t>(journal::RecordKind::kExecuted)) last = r.seq;
    });
    return last;
  }

 private:
  std::string journal_;
  ServerSpec spec_;
  std::unique_ptr<ServerProcess> server_;
};

class ServerKills : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const KillRow* row = kill_row(GetParam());
    ASSERT_NE(row, nullptr) << "transport " << GetParam()
                            << " has no row in kKillRows (server_kill_test.cc): add one saying whether its server "
                               "can restart on the port it had";
    if (row->cannot_restart) GTEST_SKIP() << GetParam() << " cannot restart on its port: " << row->cannot_restart;
  }
};

// The journal's ledger against what the server itself wrote on its last,
// clean stop: the same executions, counted the same way.
Ledger journal_ledger_matching(const CrashingServer& server, const Ledger& written, uint64_t answers_at_least) {
  Ledger ledger = read_journal_ledger(server.journal());
  EXPECT_EQ(ledger.serialize(), written.serialize()) << "the journal and the ledger file disagree";
  JournalFile file(server.journal());
  JournalSummary summary = check_journal(file.bytes());
  EXPECT_EQ(summary.header.starts, static_cast<uint32_t>(kKills + 1));
  EXPECT_LE(summary.holes, static_cast<uint64_t>(kKills));
  uint64_t by_kind[4] = {};
  for_each_record(file.bytes(), [&](const journal::Record& r) { ++by_kind[r.kind & 3]; });
  // Without the table no call is answered without running; with it, at
  // least every re-send after a restart is.
  if (answers_at_least == 0) {
    EXPECT_EQ(by_kind[2] + by_kind[3], 0u);
  }
  EXPECT_GE(by_kind[2] + by_kind[3], answers_at_least) << "answered from the table or refused as stale";
  std::cout << "[ journal  ] " << summary.sealed << " records (" << by_kind[1] << " executed, " << by_kind[2]
            << " answered from the table, " << by_kind[3] << " refused as stale), " << summary.holes
            << " unsealed by kills\n";
  return ledger;
}

harness::ClassCounts classify_one(const CallRecord& record, const Ledger& ledger) {
  harness::ClassCounts c = harness::classify({{kClientId, &record}}, ledger);
  EXPECT_EQ(c.correct + c.silent_loss + c.duplicate_calls + c.indeterminate + c.clean_failure, c.calls)
      << "a call in no class, or in two";
  std::cout << "[ classes  ] " << nlohmann::json(c).dump() << "\n";
  return c;
}

// (b) The stock client: each call once, errors and all, as rpclab-client makes them.
TEST_P(ServerKills, EveryCallTheClientSawSucceedIsInTheJournal) {
  TempDir dir;
  CrashingServer server(GetParam(), dir, {});
  std::vector<std::string> argv = {bin("rpclab-client"), "--transport", GetParam(), "--server",
                                   "127.0.0.1:" + std::to_string(server.port()), "--op", "next", "--calls",
                                   "100000000", "--client-id", std::to_string(kClientId), "--record",
                                   dir.file("client.rec")};
  for (const std::string& a : client_args(GetParam())) argv.push_back(a);
  Child client(argv, dir.file("client.log"));
  server.crash_repeatedly();
  ASSERT_EQ(client.stop(SIGTERM), 0) << read_whole_file(dir.file("client.log"));
  Ledger ledger = journal_ledger_matching(server, server.stop(), 0);
  CallRecord record = CallRecord::read_file(dir.file("client.rec"));
  ASSERT_GT(record.calls.size(), kKills * kRecordsBetweenKills / 2);
  for (const CallEntry& call : record.calls) {
    if (call.kind == ErrorKind::kOk) {
      ASSERT_GE(ledger.count(kClientId, call.seq), 1u) << "seq " << call.seq;
    }
  }
  harness::ClassCounts c = classify_one(record, ledger);
  EXPECT_EQ(c.silent_loss, 0u);
  EXPECT_EQ(c.unissued_executions, 0u);
}

// Lets the test keep the client between two attempts: the client waits at
// enter() while the test holds the gate, and hold() waits for the attempt
// under way to end. (A plain mutex would let the client, looping fast on
// refused connections, take it back again and again.)
class Gate {
 public:
  void enter() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !held_; });
    busy_ = true;
  }
  void leave() {
    std::lock_guard<std::mutex> lock(mu_);
    busy_ = false;
    cv_.notify_all();
  }
  void hold() {
    std::unique_lock<std::mutex> lock(mu_);
    held_ = true;
    cv_.wait(lock, [&] { return !busy_; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = false;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false, busy_ = false;
};

// The re-send loop of an application: the same (client id, seq) again
// after any error, until it succeeds. Not the client retry policy (that
// comes with the retry-policy axis); just enough to repeat calls at the
// worst moments. Each attempt holds `gate`, so the test can keep the client
// between attempts while it restarts the server.
CallRecord resend_until_stopped(const std::string& transport, uint16_t port, const std::atomic<bool>& stop,
                                Gate& gate, uint64_t* attempts) {
  auto client = connect_client(kill_test_options(transport, port));
  CallRecord record;
  for (uint32_t seq = 0; !stop.load(); ++seq) {
    CallStatus status;
    do {
      gate.enter();
      NextReply reply;
      status = typed_call(*client, Operation::kNext, NextRequest{kClientId, seq}, &reply);
      gate.leave();
      ++*attempts;
    } while (!status.ok() && !stop.load());
    record.calls.push_back({seq, status.kind, 0, 0});
  }
  return record;
}

// (c) With --at-most-once, the re-sends run nothing twice. Kills seldom
// fall between a call's seal and its reply, so after each kill the test
// also does what an application does when a crash ate its reply: while its
// client waits between attempts, it sends the last call the killed server
// ran again, on a new connection, to the restarted server. That server must
// answer it from the table it rebuilt from the journal, not run it.
TEST_P(ServerKills, AtMostOnceRunsNoCallTwiceAcrossTheKills) {
  TempDir dir;
  CrashingServer server(GetParam(), dir, {"--at-most-once"});
  std::atomic<bool> stop{false};
  Gate gate;
  uint64_t attempts = 0;
  CallRecord record;
  std::thread client([&] { record = resend_until_stopped(GetParam(), server.port(), stop, gate, &attempts); });
  auto crash_and_resend = [&] {
    server.wait_for_progress();
    server.kill();
    gate.hold();
    std::shared_ptr<void> release(nullptr, [&](void*) { gate.release(); });
    uint32_t last = server.last_executed();
    server.restart();
    NextReply reply;
    auto again = connect_client(kill_test_options(GetParam(), server.port()));
    CallStatus status = typed_call(*again, Operation::kNext, NextRequest{kClientId, last}, &reply);
    ASSERT_TRUE(status.ok()) << "the re-send of seq " << last << " after a restart: " << status.detail;
    EXPECT_NE(reply.status, NextStatus::kStale) << "seq " << last;
    EXPECT_EQ(reply.times_executed, 1u) << "seq " << last;
  };
  try {
    for (int k = 0; k < kKills && !HasFatalFailure(); ++k) crash_and_resend();
    server.wait_for_progress();
  } catch (...) {
    stop = true;
    client.join();
    throw;
  }
  stop = true;
  client.join();
  Ledger ledger = journal_ledger_matching(server, server.stop(), kKills);
  std::cout << "[ client   ] " << record.calls.size() << " calls in " << attempts << " attempts\n";
  ASSERT_GT(record.calls.size(), kKills * kRecordsBetweenKills / 2);
  for (const CallEntry& call : record.calls) {
    uint32_t ran = ledger.count(kClientId, call.seq);
    ASSERT_LE(ran, 1u) << "seq " << call.seq << " ran " << ran << " times";
    if (call.kind == ErrorKind::kOk) {
      ASSERT_EQ(ran, 1u) << "seq " << call.seq;
    }
  }
  harness::ClassCounts c = classify_one(record, ledger);
  EXPECT_EQ(c.duplicate_calls, 0u);
  EXPECT_EQ(c.silent_loss, 0u);
  EXPECT_EQ(ledger.total_executions(kClientId), record.calls.size() - c.clean_failure);
}

INSTANTIATE_TEST_SUITE_P(Transports, ServerKills, testing::ValuesIn(all_transports()), param_name);

}  // namespace
}  // namespace rpclab::test
