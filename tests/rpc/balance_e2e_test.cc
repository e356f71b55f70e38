// gRPC's client-side balancing on the real stack: two rpclab-server
// replicas, each with its own ledger and journal, and one rpclab-client
// --transport grpc --server A,B (round_robin over an ipv4: target). Every
// call runs on exactly one replica; a replica killed before the client
// starts is skipped. A row whose traits do not balance refuses a list.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rpc_test_util.h"
#include "server/journal_reader.h"
#include "support/client_process.h"
#include "support/process.h"
#include "support/server_process.h"

namespace rpclab::test {
namespace {

constexpr uint32_t kCalls = 1000, kClientId = 7;

// A grpc replica with its own ledger (ServerProcess's) and journal.
class Replica {
 public:
  Replica() : server_(ServerSpec{"grpc", {"--journal", dir_.file("journal.bin")}}) {}
  ServerProcess& server() { return server_; }
  // Stops it; its ledger, checked against the one its journal gives.
  Ledger stop() {
    Ledger ledger = server_.stop();
    Ledger journalled = read_journal_ledger(dir_.file("journal.bin"));
    EXPECT_EQ(journalled.total_executions(kClientId), ledger.total_executions(kClientId));
    return ledger;
  }

 private:
  TempDir dir_;
  ServerProcess server_;
};

ClientRun balanced_client(const std::string& servers, const TempDir& dir, std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"--transport", "grpc", "--server", servers, "--op", "next", "--calls",
                                   std::to_string(kCalls), "--client-id", std::to_string(kClientId),
                                   "--timeout", "5000"};
  args.insert(args.end(), more.begin(), more.end());
  return run_client(args, dir);
}

void expect_every_call_ok(const ClientRun& run) {
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  ASSERT_EQ(run.record.calls.size(), kCalls);
  for (const CallEntry& call : run.record.calls)
    ASSERT_EQ(call.kind, ErrorKind::kOk) << "seq " << call.seq << ": " << run.record.detail(call);
}

// Each (client, seq) ran exactly once over the two ledgers together.
void expect_each_seq_once(const Ledger& a, const Ledger& b) {
  EXPECT_EQ(a.total_executions(kClientId) + b.total_executions(kClientId), kCalls);
  for (uint32_t seq = 0; seq < kCalls; ++seq)
    ASSERT_EQ(a.count(kClientId, seq) + b.count(kClientId, seq), 1u) << "seq " << seq;
}

TEST(GrpcBalance, RoundRobinSpreadsTheCallsAndEachRunsOnOneReplica) {
  TempDir dir;
  Replica a, b;
  std::string list = a.server().address() + "," + b.server().address();
  ClientRun run = balanced_client(list, dir);
  expect_every_call_ok(run);
  EXPECT_EQ(run.record.header["server"], list) << "the flag as given";
  EXPECT_EQ(run.record.servers(), (std::vector<std::string>{a.server().address(), b.server().address()}));

  Ledger la = a.stop(), lb = b.stop();
  EXPECT_GT(la.total_executions(kClientId), 0u) << "replica A ran none: no balancing";
  EXPECT_GT(lb.total_executions(kClientId), 0u) << "replica B ran none: no balancing";
  expect_each_seq_once(la, lb);
}

// gRPC 1.51's round_robin picks among READY subchannels only: the killed
// replica's refused connection leaves its subchannel in TRANSIENT_FAILURE
// (reconnected with backoff), and every call goes to the live one.
TEST(GrpcBalance, AReplicaKilledBeforeTheClientStartsIsSkipped) {
  TempDir dir;
  Replica live, dead;
  std::string list = dead.server().address() + "," + live.server().address();
  dead.server().kill();
  ClientRun run = balanced_client(list, dir);
  expect_every_call_ok(run);
  Ledger ledger = live.stop();
  EXPECT_EQ(ledger.total_executions(kClientId), kCalls);
  for (uint32_t seq = 0; seq < kCalls; ++seq) ASSERT_EQ(ledger.count(kClientId, seq), 1u) << "seq " << seq;
}

// The retry policy and round_robin share one service config: with both
// replicas up, nothing fails and nothing is retried, and both still serve.
TEST(GrpcBalance, TheLibraryRetryPolicyKeepsRoundRobin) {
  TempDir dir;
  Replica a, b;
  ClientRun run = balanced_client(a.server().address() + "," + b.server().address(), dir,
                                  {"--retry-policy", "library"});
  expect_every_call_ok(run);
  EXPECT_EQ(run.record.header["retry"]["policy"], "library");
  Ledger la = a.stop(), lb = b.stop();
  EXPECT_GT(la.total_executions(kClientId), 0u);
  EXPECT_GT(lb.total_executions(kClientId), 0u);
  expect_each_seq_once(la, lb);
}

// One server: the record is as before lists (no `servers` field).
TEST(GrpcBalance, OneServerWritesNoList) {
  TempDir dir;
  Replica a;
  ClientRun run = run_client({"--transport", "grpc", "--server", a.server().address(), "--op", "next", "--calls",
                              "3", "--client-id", std::to_string(kClientId)},
                             dir);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_FALSE(run.record.header.contains("servers")) << run.record.header;
  EXPECT_EQ(run.record.servers(), std::vector<std::string>{a.server().address()});
  a.stop();
}

// Every row whose traits do not balance refuses a list with exit 2, in one
// line that says what to do, before any call.
TEST(GrpcBalance, ARowThatDoesNotBalanceRefusesAList) {
  TempDir dir;
  for (const TransportRow& row : transports()) {
    if (row.traits.balances) continue;
    SCOPED_TRACE(std::string(row.name));
    ProcessResult r = run_program({bin("rpclab-client"), "--transport", std::string(row.name), "--server",
                                   "127.0.0.1:9,127.0.0.1:10", "--calls", "1", "--record", dir.file("record")},
                                  std::chrono::seconds(20));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "rpclab-client: --server: " + std::string(row.name) +
                         " takes one HOST:PORT; only grpc balances over several (a list was given: "
                         "127.0.0.1:9,127.0.0.1:10)\n");
  }
}

}  // namespace
}  // namespace rpclab::test
