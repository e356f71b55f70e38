// The application's retry loop, decision by decision, over a scripted
// client (a unit test of the loop; the real transports are in
// retry_e2e_test.cc): which outcomes it retries, a new handle for each
// retry, the backoff, giving up after K retries with the last error, and
// stopping when asked. Then run_plan with the loop: every attempt recorded.
#include <gtest/gtest.h>

#include <deque>

#include "client/app_retry.h"
#include "client/client_run.h"

namespace rpclab {
namespace {

using std::chrono::milliseconds;

// Answers each call with the next scripted outcome, whichever handle it is.
struct Script {
  std::deque<ErrorKind> outcomes;
  int handles = 0;
  std::vector<uint32_t> seqs;  // the seq of every NEXT sent
};

class ScriptedClient : public RpcClient {
 public:
  explicit ScriptedClient(Script& s) : s_(s) {}
  CallStatus call(Operation op, const OpArgs& args, OpReply* reply) override {
    if (op == Operation::kNext) {
      s_.seqs.push_back(std::get<NextRequest>(args).seq);
      reply->emplace<NextReply>();
    }
    return next_outcome();
  }

 private:
  CallStatus next_outcome() {
    ErrorKind k = ErrorKind::kOk;
    if (!s_.outcomes.empty()) {
      k = s_.outcomes.front();
      s_.outcomes.pop_front();
    }
    return k == ErrorKind::kOk ? CallStatus::success() : CallStatus::failure(k, std::string(error_kind_name(k)));
  }
  Script& s_;
};

struct Loop {
  Script script;
  std::vector<milliseconds> waits;
  std::atomic<bool> stop{false};
  AppRetry retry;

  explicit Loop(AppRetryOptions o)
      : retry([this] { ++script.handles; return std::make_unique<ScriptedClient>(script); }, o, stop,
              [this](milliseconds ms) { waits.push_back(ms); }) {}

  std::vector<Attempt> call(std::deque<ErrorKind> outcomes) {
    script.outcomes = std::move(outcomes);
    std::vector<Attempt> attempts;
    retry.call([](RpcClient& c) { return Attempt{typed_call(c, Operation::kNull, Empty{}), 0, 0}; }, &attempts);
    return attempts;
  }
};

std::vector<ErrorKind> kinds(const std::vector<Attempt>& attempts) {
  std::vector<ErrorKind> out;
  for (const Attempt& a : attempts) out.push_back(a.status.kind);
  return out;
}

TEST(AppRetry, RetriesTimeoutsAndBrokenConnectionsOnANewHandle) {
  for (ErrorKind k : {ErrorKind::kTimeout, ErrorKind::kUnavailable, ErrorKind::kCannotSend, ErrorKind::kCannotReceive}) {
    SCOPED_TRACE(error_kind_name(k));
    Loop loop({3, 50, 1000});
    auto attempts = loop.call({k, ErrorKind::kOk});
    EXPECT_EQ(kinds(attempts), (std::vector<ErrorKind>{k, ErrorKind::kOk}));
    EXPECT_EQ(loop.script.handles, 2) << "a retry goes through a new handle";
    EXPECT_EQ(loop.waits, (std::vector<milliseconds>{milliseconds(50)}));
  }
}

TEST(AppRetry, DoesNotRetryWhatWouldFailTheSameWay) {
  for (ErrorKind k : {ErrorKind::kOk, ErrorKind::kCannotCode, ErrorKind::kOther}) {
    SCOPED_TRACE(error_kind_name(k));
    Loop loop({3, 50, 1000});
    EXPECT_EQ(loop.call({k, ErrorKind::kOk}).size(), 1u);
    EXPECT_EQ(loop.script.handles, 1);
    EXPECT_TRUE(loop.waits.empty());
  }
}

TEST(AppRetry, GivesUpAfterKRetriesWithTheLastErrorAndBacksOffExponentially) {
  Loop loop({4, 100, 300});
  auto attempts = loop.call({ErrorKind::kTimeout, ErrorKind::kTimeout, ErrorKind::kUnavailable, ErrorKind::kTimeout,
                             ErrorKind::kCannotReceive, ErrorKind::kOk});
  ASSERT_EQ(attempts.size(), 5u) << "the first attempt and 4 retries";
  EXPECT_EQ(attempts.back().status.kind, ErrorKind::kCannotReceive);
  EXPECT_EQ(loop.waits, (std::vector<milliseconds>{milliseconds(100), milliseconds(200), milliseconds(300),
                                                    milliseconds(300)}));
  EXPECT_EQ(loop.script.handles, 5);
  // Having given up on a broken handle, the next call starts on a new one.
  loop.call({ErrorKind::kOk});
  EXPECT_EQ(loop.script.handles, 6);
}

TEST(AppRetry, KeepsItsHandleWhileCallsSucceed) {
  Loop loop({3, 50, 1000});
  for (int i = 0; i < 5; ++i) loop.call({ErrorKind::kOk});
  EXPECT_EQ(loop.script.handles, 1);
}

TEST(AppRetry, StopEndsTheLoop) {
  Loop loop({10, 50, 1000});
  loop.stop = true;
  EXPECT_EQ(loop.call({ErrorKind::kTimeout, ErrorKind::kTimeout, ErrorKind::kOk}).size(), 1u);
}

TEST(AppRetry, RunPlanRecordsEveryAttemptOfTheSameSeq) {
  Loop loop({3, 0, 0});
  loop.script.outcomes = {ErrorKind::kOk, ErrorKind::kTimeout, ErrorKind::kCannotReceive, ErrorKind::kOk,
                          ErrorKind::kOk};
  ClientPlan plan;
  plan.op = Operation::kNext;
  plan.first_seq = 10;
  plan.calls = 3;
  CallRecord r = run_plan(loop.retry, plan, loop.stop);
  EXPECT_EQ(loop.script.seqs, (std::vector<uint32_t>{10, 11, 11, 11, 12})) << "a retry sends the same seq";
  ASSERT_EQ(r.calls.size(), 3u);
  EXPECT_EQ(r.calls[0].attempts, 1u);
  EXPECT_EQ(r.calls[1].attempts, 3u);
  EXPECT_EQ(r.calls[1].kind, ErrorKind::kOk);
  ASSERT_EQ(r.attempts.size(), 3u);
  EXPECT_EQ(r.attempts[0].kind, ErrorKind::kTimeout);
  EXPECT_EQ(r.attempts[1].kind, ErrorKind::kCannotReceive);
  EXPECT_EQ(r.attempts[2].kind, ErrorKind::kOk);
  for (const AttemptEntry& a : r.attempts) EXPECT_EQ(a.call, 1u);
  // Start times: in order, each call after the one before, and a call's
  // latency spans its attempts.
  EXPECT_LE(r.calls[0].start_ns, r.calls[1].start_ns);
  EXPECT_EQ(r.calls[1].start_ns, r.attempts[0].start_ns);
  EXPECT_EQ(r.calls[1].latency_ns, r.attempts[2].start_ns + r.attempts[2].latency_ns - r.attempts[0].start_ns);
  EXPECT_LE(r.attempts[2].start_ns + r.attempts[2].latency_ns, r.calls[2].start_ns);
  EXPECT_EQ(r.header["outcomes"], (nlohmann::json{{"ok", 3}}));
}

}  // namespace
}  // namespace rpclab
