// The shared at-most-once table (--at-most-once-shared): two server cores,
// two "replicas", sharing one real redis-server. A call run on one is
// answered from the table on the other, an older seq is refused there, a
// copy that arrives while another replica holds the claim waits for it to
// complete or for its lease to run out, and a Redis gone refuses the call.
// End to end: two rpclab-server processes behind one Redis, one client id.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <thread>

#include "common/cli_support.h"
#include "common/inet.h"
#include "server/journal_reader.h"
#include "server/server_core.h"
#include "server/shared_at_most_once.h"
#include "rpc_test_util.h"
#include "support/client_process.h"
#include "support/redis_process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace rpclab {
namespace {

using Verdict = AtMostOnceScope::Verdict;
using test::RedisProcess;
using test::TempDir;

// A replica: its own core, journal and connection to the shared table.
struct Replica {
  std::shared_ptr<SharedAtMostOnceTable> table;
  std::unique_ptr<ServerCore> core;
  std::string journal;

  Replica(const RedisProcess& redis, const std::string& journal_path, int lease_ms = 2000) : journal(journal_path) {
    table = std::make_shared<SharedAtMostOnceTable>("127.0.0.1", redis.port(), lease_ms);
    ServerCoreOptions o;
    o.transport = "grpc";
    o.journal_path = journal_path;
    o.at_most_once_scope = table;
    core = std::make_unique<ServerCore>(o);
  }
  uint32_t runs(uint32_t client_id, uint32_t seq) const { return read_journal_ledger(journal).count(client_id, seq); }
};

// Another server's claim, taken by hand and completed (or not) when the
// test says so.
AtMostOnceScope::Answer claim_by_hand(SharedAtMostOnceTable& table, uint32_t client_id, uint32_t seq) {
  std::mutex mu;
  std::unique_lock<std::mutex> lock(mu);
  return table.claim(client_id, seq, lock);
}

class SharedAtMostOnce : public testing::Test {
 protected:
  void SetUp() override {
    if (!RedisProcess::installed()) GTEST_SKIP() << "redis-server is not installed (tools/deps.sh build installs it)";
    redis_ = std::make_unique<RedisProcess>();
  }
  std::unique_ptr<RedisProcess> redis_;
  TempDir dir_;
};

TEST_F(SharedAtMostOnce, ACallRunOnOneReplicaIsAnsweredFromTheTableOnAnother) {
  Replica a(*redis_, dir_.file("a.journal")), b(*redis_, dir_.file("b.journal"));
  NextReply first = a.core->next(1, 0);
  NextReply again = b.core->next(1, 0);
  EXPECT_EQ(again.status, first.status);
  EXPECT_EQ(again.expected_seq, first.expected_seq);
  EXPECT_EQ(again.times_executed, 1u);
  EXPECT_EQ(a.runs(1, 0), 1u);
  EXPECT_EQ(b.runs(1, 0), 0u);
  EXPECT_EQ(b.core->counters().answered_from_table, 1u);
  EXPECT_EQ(a.core->counters().answered_from_table, 0u);
  EXPECT_EQ(b.table->waits(), 0u);
}

TEST_F(SharedAtMostOnce, AnOlderSeqIsRefusedStaleOnAnotherReplica) {
  Replica a(*redis_, dir_.file("a.journal")), b(*redis_, dir_.file("b.journal"));
  a.core->next(1, 0);
  a.core->next(1, 1);
  EXPECT_EQ(b.core->next(1, 0).status, NextStatus::kStale);
  EXPECT_EQ(b.core->counters().refused_stale, 1u);
  EXPECT_EQ(b.runs(1, 0), 0u);
  EXPECT_EQ(b.core->next(1, 2).status, NextStatus::kOutOfOrder);  // runs; Levy's expectation is per replica
  EXPECT_EQ(a.core->next(1, 2).times_executed, 1u);                 // and is then a repeat on A
  EXPECT_EQ(a.runs(1, 2), 0u);
}

TEST_F(SharedAtMostOnce, AClaimThatNeverCompletesIsTakenOverAfterItsLease) {
  constexpr int kLeaseMs = 300;
  SharedAtMostOnceTable stuck("127.0.0.1", redis_->port(), kLeaseMs);  // a replica that stalls mid-call
  ASSERT_EQ(claim_by_hand(stuck, 1, 0).verdict, Verdict::kExecute);
  Replica b(*redis_, dir_.file("b.journal"));
  auto start = std::chrono::steady_clock::now();
  NextReply reply = b.core->next(1, 0);
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(reply.status, NextStatus::kInOrder);
  EXPECT_EQ(b.runs(1, 0), 1u);
  EXPECT_EQ(b.table->takeovers(), 1u);
  EXPECT_GT(b.table->waits(), 0u);
  // Redis's clock and ours agree to well under the 100 ms of slack.
  EXPECT_GE(waited, std::chrono::milliseconds(kLeaseMs - 100));
  // The stalled replica's late completion does not replace B's entry, and
  // a copy on B afterwards is a repeat.
  stuck.complete(1, 0, {NextStatus::kOutOfOrder, 9, 1});
  EXPECT_EQ(b.core->next(1, 0).status, NextStatus::kInOrder);
  EXPECT_EQ(b.runs(1, 0), 1u);
}

TEST_F(SharedAtMostOnce, AReplicaWaitingOnAClaimGetsTheRepeatWhenItCompletes) {
  SharedAtMostOnceTable running("127.0.0.1", redis_->port(), 60000);
  ASSERT_EQ(claim_by_hand(running, 1, 0).verdict, Verdict::kExecute);
  Replica b(*redis_, dir_.file("b.journal"));
  NextReply reply;
  std::thread copy([&] { reply = b.core->next(1, 0); });
  bool waiting = test::wait_until([&] { return b.table->waits() > 0; }, std::chrono::seconds(10));
  // B's lock is let go while it waits: its other clients' calls go on.
  if (waiting) {
    EXPECT_EQ(b.core->next(2, 0).times_executed, 1u);
  }
  running.complete(1, 0, {NextStatus::kOutOfOrder, 4, 1});
  copy.join();
  ASSERT_TRUE(waiting) << "B never waited on the claim";
  EXPECT_EQ(reply.status, NextStatus::kOutOfOrder);
  EXPECT_EQ(reply.expected_seq, 4u);
  EXPECT_EQ(b.runs(1, 0), 0u);
  EXPECT_EQ(b.table->takeovers(), 0u);
  EXPECT_EQ(b.core->counters().answered_from_table, 1u);
}

TEST_F(SharedAtMostOnce, ARedisGoneRefusesTheCallUnrunAndCountsIt) {
  Replica a(*redis_, dir_.file("a.journal"));
  a.core->next(1, 0);
  redis_->stop();
  EXPECT_THROW(a.core->next(1, 1), AtMostOnceUnavailable);
  EXPECT_EQ(a.core->counters().table_unavailable, 1u);
  EXPECT_EQ(a.runs(1, 1), 0u);
}

// Redis is the table: a restarted replica rebuilds Levy's expectation from
// its journal but writes nothing of it into Redis.
TEST_F(SharedAtMostOnce, ARestartRebuildsLevysExpectationButLeavesRedisAlone) {
  std::string journal = dir_.file("a.journal");
  {
    Replica a(*redis_, journal);
    for (uint32_t seq = 0; seq < 3; ++seq) a.core->next(1, seq);
  }
  RedisProcess fresh;  // a table that never saw those calls
  Replica again(fresh, journal);
  SharedAtMostOnceTable probe("127.0.0.1", fresh.port(), 2000);
  EXPECT_EQ(claim_by_hand(probe, 1, 2).verdict, Verdict::kExecute);
  probe.release(1, 2);
  EXPECT_EQ(again.core->next(1, 3).status, NextStatus::kInOrder);
}

// Two real servers, one Redis: seq 0 runs on A; the same client id's seq 0
// sent to B is answered from the table, and B's journal has no execution.
TEST_F(SharedAtMostOnce, TwoServerProcessesShareOneTable) {
  std::vector<std::string> a_args = {"--at-most-once-shared", redis_->address(), "--journal", dir_.file("a.journal")};
  std::vector<std::string> b_args = {"--at-most-once-shared", redis_->address(), "--journal", dir_.file("b.journal")};
  test::ServerProcess a(test::ServerSpec{"grpc", a_args}), b(test::ServerSpec{"grpc", b_args});
  for (const test::ServerProcess* server : {&a, &b}) {
    test::ClientRun run = test::run_client({"--transport", "grpc", "--server", server->address(), "--op", "next",
                                            "--calls", "1", "--client-id", "9", "--first-seq", "0"},
                                           dir_);
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    ASSERT_EQ(run.record.calls.size(), 1u);
    EXPECT_EQ(run.record.calls[0].kind, ErrorKind::kOk) << run.record.detail(run.record.calls[0]);
  }
  EXPECT_EQ(a.stop().count(9, 0), 1u);
  EXPECT_EQ(b.stop().count(9, 0), 0u);
  std::vector<journal::Record> b_records = read_journal_records(dir_.file("b.journal"));
  ASSERT_EQ(b_records.size(), 1u);
  EXPECT_EQ(b_records[0].kind, static_cast<uint8_t>(journal::RecordKind::kAnsweredFromTable));
  EXPECT_EQ(read_journal_ledger(dir_.file("a.journal")).count(9, 0), 1u);
}

// Each adapter answers a NEXT the table cannot be asked about with its
// library's error: a failure the client sees, the call not run, the
// server still serving.
class SharedTableGone : public testing::TestWithParam<std::string> {};

TEST_P(SharedTableGone, TheClientSeesAFailureAndTheCallDoesNotRun) {
  if (!RedisProcess::installed()) GTEST_SKIP() << "redis-server is not installed (tools/deps.sh build installs it)";
  RedisProcess redis;
  test::ServerProcess server(test::ServerSpec{GetParam(), {"--at-most-once-shared", redis.address()}});
  auto client = test::make_client(GetParam(), server.port());
  NextReply reply;
  ASSERT_TRUE(typed_call(*client, Operation::kNext, NextRequest{1, 0}, &reply).ok());
  redis.stop();
  CallStatus refused = typed_call(*client, Operation::kNext, NextRequest{1, 1}, &reply);
  EXPECT_FALSE(refused.ok()) << "a NEXT ran without its table";
  ASSERT_TRUE(typed_call(*client, Operation::kNull, Empty{}).ok()) << "the server stopped serving";
  Ledger ledger = server.stop();
  EXPECT_EQ(ledger.count(1, 0), 1u);
  EXPECT_EQ(ledger.count(1, 1), 0u);
}

INSTANTIATE_TEST_SUITE_P(Transports, SharedTableGone, testing::ValuesIn(test::all_transports()), test::param_name);

// Needs no Redis: nothing listens on the port.
TEST(SharedAtMostOnceFlags, AnUnreachableRedisStopsTheServerAtOnceNamingTheAddress) {
  int fd = bind_socket(SOCK_STREAM, "127.0.0.1", 0);
  std::string address = "127.0.0.1:" + std::to_string(bound_port(fd));
  ::close(fd);
  auto start = std::chrono::steady_clock::now();
  test::ProcessResult r = test::run_program(
      {test::bin("rpclab-server"), "--transport", "grpc", "--at-most-once-shared", address}, std::chrono::seconds(20));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(r.exit_code, kExitSetup) << r.err;
  EXPECT_NE(r.err.find("--at-most-once-shared " + address + ": cannot reach Redis"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("start redis-server there"), std::string::npos) << r.err;
}

TEST(SharedAtMostOnceFlags, BothScopesAtOnceIsAUsageError) {
  test::ProcessResult r = test::run_program({test::bin("rpclab-server"), "--transport", "grpc", "--at-most-once",
                                             "--at-most-once-shared", "127.0.0.1:6379"});
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find("--at-most-once and --at-most-once-shared are two scopes of one table"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace rpclab
