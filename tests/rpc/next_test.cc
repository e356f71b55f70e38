// Levy's experiment with nothing in the way: 1,000 NEXT calls in order over
// each transport, with a connection kept and with one per call. Every
// sequence number must run exactly once and the server must see no gap.
// TCP_NODELAY is on where the row takes it on both sides: xmlrpc-pstream
// without it makes 10 calls a second (docs/architecture.md).
#include <gtest/gtest.h>

#include "rpc_test_util.h"
#include "support/client_process.h"
#include "support/server_process.h"

namespace rpclab::test {
namespace {

constexpr uint32_t kCalls = 1000;

struct Mode {
  const char* connect;
  uint32_t client_id;
};
constexpr Mode kModes[] = {{"persistent", 1}, {"per-call", 2}};

class NextCalls : public testing::TestWithParam<std::string> {};

void expect_all_ok(const ClientRun& run, const Mode& mode) {
  ASSERT_EQ(run.process.exit_code, 0) << mode.connect << ": " << run.process.err;
  ASSERT_EQ(run.record.calls.size(), kCalls) << mode.connect;
  for (uint32_t i = 0; i < kCalls; ++i) {
    const CallEntry& call = run.record.calls[i];
    ASSERT_EQ(call.seq, i) << mode.connect;
    ASSERT_EQ(call.kind, ErrorKind::kOk) << mode.connect << " seq " << i << ": " << run.record.detail(call);
  }
  EXPECT_EQ(run.record.header["connect"], mode.connect);
}

TEST_P(NextCalls, EverySeqRunsExactlyOnceKeptOrPerCall) {
  TempDir dir;
  ServerProcess server(ServerSpec{GetParam(), nodelay_flag(GetParam())});
  for (const Mode& mode : kModes) {
    std::vector<std::string> args = {"--transport", GetParam(), "--server", server.address(), "--op", "next",
                                     "--calls", std::to_string(kCalls), "--connect", mode.connect, "--client-id",
                                     std::to_string(mode.client_id), "--timeout", "5000"};
    for (const std::string& flag : nodelay_flag(GetParam())) args.push_back(flag);
    ClientRun run = run_client(args, dir);
    expect_all_ok(run, mode);
  }
  Ledger ledger = server.stop();
  EXPECT_EQ(ledger.clients().size(), std::size(kModes));
  EXPECT_EQ(ledger.unrecorded(), 0u);
  for (const Mode& mode : kModes) {
    EXPECT_EQ(ledger.mismatches(mode.client_id), 0u) << mode.connect;
    EXPECT_EQ(ledger.total_executions(mode.client_id), kCalls) << mode.connect;
    for (uint32_t seq = 0; seq < kCalls; ++seq)
      ASSERT_EQ(ledger.count(mode.client_id, seq), 1u) << mode.connect << " seq " << seq;
    EXPECT_EQ(ledger.count(mode.client_id, kCalls), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, NextCalls, testing::ValuesIn(all_transports()), param_name);

}  // namespace
}  // namespace rpclab::test
