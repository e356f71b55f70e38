// Open loop (rpclab-client --rate): call i leaves when it is due, i / rate
// after the first, never before; a late call leaves at once, one
// outstanding at a time; the header says the rate so a reader can take
// each latency from the due time. In process over a scripted client, then
// the real program over loopback.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "client/client_run.h"
#include "rpc_test_util.h"
#include "support/client_process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;

// Answers NULL at once, except call `slow` (0-based), which takes `slow_for`.
class SlowOnceClient : public RpcClient {
 public:
  SlowOnceClient(int slow, std::chrono::milliseconds slow_for) : slow_(slow), slow_for_(slow_for) {}
  CallStatus call(Operation, const OpArgs&, OpReply*) override {
    if (calls_++ == slow_) std::this_thread::sleep_for(slow_for_);  // not a wait: the slow call the schedule must absorb
    return CallStatus::success();
  }

 private:
  int calls_ = 0, slow_;
  std::chrono::milliseconds slow_for_;
};

TEST(OpenLoop, CallsLeaveWhenDueAndALateOneAtOnce) {
  // 200/s: due every 5 ms. Call 3 (due 15 ms) takes 22 ms, so calls 4..7
  // (due 20..35 ms) are late and wait for it, one call outstanding.
  SlowOnceClient client(3, 22ms);
  ClientPlan plan;
  plan.op = Operation::kNull;
  plan.calls = 20;
  plan.rate_per_s = 200;
  std::atomic<bool> stop{false};
  CallRecord r = run_plan(client, plan, stop);
  ASSERT_EQ(r.calls.size(), 20u);
  ASSERT_TRUE(r.rate_per_s());
  EXPECT_EQ(*r.rate_per_s(), 200);
  for (size_t i = 0; i < r.calls.size(); ++i) {
    EXPECT_EQ(r.due_ns(i), static_cast<int64_t>(i) * 5000000);
    EXPECT_GE(r.calls[i].start_ns, r.due_ns(i)) << "call " << i << " left before it was due";
    if (i) {
      EXPECT_GE(r.calls[i].start_ns, r.calls[i - 1].start_ns + r.calls[i - 1].latency_ns) << "two outstanding";
    }
  }
  EXPECT_GE(r.calls[3].latency_ns, 22000000);
  // Call 4 waited for call 3 (due 15 ms + 22 ms): at least 17 ms after its own due time.
  EXPECT_GE(r.calls[4].start_ns - r.due_ns(4), 17000000);
  EXPECT_GE(r.header["wall_ns"].get<int64_t>(), r.due_ns(19));
}

TEST(OpenLoop, ClosedLoopHasNoRateInItsHeader) {
  SlowOnceClient client(-1, 0ms);
  ClientPlan plan;
  plan.op = Operation::kNull;
  plan.calls = 5;
  std::atomic<bool> stop{false};
  CallRecord r = run_plan(client, plan, stop);
  EXPECT_FALSE(r.header.contains("rate_per_s"));
  EXPECT_FALSE(r.rate_per_s());
  EXPECT_EQ(r.due_ns(4), 0);
}

// The program: N calls at R a second take about N / R seconds (at least
// the last call's due time; the bound above is loose for a busy machine).
TEST(OpenLoop, TheClientProgramKeepsItsRate) {
  TempDir dir;
  ServerProcess server("raw-udp");
  ClientRun run = run_client({"--transport", "raw-udp", "--server", server.address(), "--op", "echo", "--size", "12",
                              "--calls", "400", "--rate", "2000", "--warmup", "10", "--timeout", "5000"},
                             dir);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  ASSERT_EQ(run.record.calls.size(), 400u);
  EXPECT_EQ(run.record.header["rate_per_s"], 2000);
  int64_t wall = run.record.header["wall_ns"].get<int64_t>();
  EXPECT_GE(wall, 199500000);  // call 399 is due at 199.5 ms
  EXPECT_LT(wall, 2200000000) << "400 calls at 2,000/s should take about 0.2 s";
  for (size_t i = 0; i < run.record.calls.size(); ++i) {
    EXPECT_EQ(run.record.calls[i].kind, ErrorKind::kOk);
    EXPECT_GE(run.record.calls[i].start_ns, run.record.due_ns(i));
  }
}

}  // namespace
}  // namespace rpclab::test
