#include "client/client_run.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <vector>

#include "common/start_gate.h"

namespace rpclab {
namespace {

using Clock = std::chrono::steady_clock;

int64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t cpu_us(const timeval& tv) { return int64_t{tv.tv_sec} * 1000000 + tv.tv_usec; }

void sleep_until_realtime(int64_t when_ns) {
  timespec ts{static_cast<time_t>(when_ns / 1000000000), static_cast<long>(when_ns % 1000000000)};
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// Open loop: sleeps until `due` on the monotonic clock, the one
// steady_clock reads on Linux, never when it has passed; in slices of at
// most 100 ms so a stop (a signal, seen by another thread) is not held up
// by a low rate's long wait.
void wait_until_due(Clock::time_point due, const std::atomic<bool>& stop) {
  constexpr auto kSlice = std::chrono::milliseconds(100);
  while (!stop.load()) {
    auto now = Clock::now();
    if (now >= due) return;
    auto until = std::min(due, now + kSlice);
    int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(until.time_since_epoch()).count();
    timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
  }
}

// Makes one client's calls of one operation, as its row says: the
// arguments made once, the seq put in each numbered call, the reply
// checked after the clock stops (checking is not part of the call).
class Caller {
 public:
  explicit Caller(const ClientPlan& plan)
      : row_(operation_row(plan.op)), setup_(row_.setup(plan.client_id, plan.size)) {}

  void use(RpcClient& client) { client_ = &client; }  // the handle the next call goes through

  CallStatus call(uint32_t seq, int64_t* latency_ns) {
    if (row_.numbered()) row_.set_seq(setup_.args, seq);
    auto start = Clock::now();
    CallStatus status = client_->call(row_.op, setup_.args, &reply_);
    *latency_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    if (status.ok()) {
      std::string wrong = row_.check(setup_, reply_);
      if (!wrong.empty()) status = CallStatus::failure(ErrorKind::kOther, wrong);
    }
    return status;
  }

 private:
  RpcClient* client_ = nullptr;
  const OperationRow& row_;
  CallSetup setup_;
  OpReply reply_;  // kept between calls, so a large reply's buffer is reused
};

// How one recorded call is made: its attempts, each timed from `t0`.
using CallFn = std::function<void(Caller&, uint32_t seq, Clock::time_point t0, std::vector<Attempt>*)>;

Attempt timed_attempt(Caller& caller, RpcClient& client, uint32_t seq, Clock::time_point t0) {
  caller.use(client);
  Attempt a;
  a.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
  a.status = caller.call(seq, &a.latency_ns);
  return a;
}

// The call as the application saw it (the last attempt's outcome, from the
// first start to the last end), and each attempt when there were several.
void add_call(CallRecord& record, uint32_t seq, const std::vector<Attempt>& attempts) {
  const Attempt &first = attempts.front(), &last = attempts.back();
  CallEntry e;
  e.seq = seq;
  e.kind = last.status.kind;
  e.detail = record.intern(last.status.detail);
  e.start_ns = first.start_ns;
  e.latency_ns = last.start_ns + last.latency_ns - first.start_ns;
  e.attempts = static_cast<uint32_t>(attempts.size());
  if (attempts.size() > 1)
    for (size_t n = 0; n < attempts.size(); ++n)
      record.attempts.push_back({record.calls.size(), static_cast<uint32_t>(n + 1), attempts[n].status.kind,
                                 record.intern(attempts[n].status.detail), attempts[n].latency_ns,
                                 attempts[n].start_ns});
  record.calls.push_back(e);
}

void fill_header(CallRecord& record, const ClientPlan& plan, bool stopped, int64_t started, int64_t wall_ns,
                 const rusage& before, const rusage& after) {
  std::array<uint64_t, kErrorKindCount> by_kind{};
  for (const CallEntry& e : record.calls) ++by_kind[static_cast<size_t>(e.kind)];
  nlohmann::json& h = record.header;
  h["op"] = operation_name(plan.op);
  h["client_id"] = plan.client_id;
  h["size"] = plan.size;
  h["calls_planned"] = plan.calls;
  h["calls_made"] = record.calls.size();
  h["warmup"] = plan.warmup;
  h["interrupted"] = stopped;
  if (plan.duration_ms) h["duration_ms"] = *plan.duration_ms;
  if (plan.rate_per_s) h["rate_per_s"] = *plan.rate_per_s;  // call i was due at schedule_ns(i, rate)
  h["start_realtime_ns"] = started;
  h["end_realtime_ns"] = started + wall_ns;
  h["wall_ns"] = wall_ns;
  h["cpu_user_us"] = cpu_us(after.ru_utime) - cpu_us(before.ru_utime);
  h["cpu_sys_us"] = cpu_us(after.ru_stime) - cpu_us(before.ru_stime);
  nlohmann::json outcomes = nlohmann::json::object();
  for (int k = 0; k < kErrorKindCount; ++k)
    if (by_kind[k]) outcomes[std::string(error_kind_name(static_cast<ErrorKind>(k)))] = by_kind[k];
  h["outcomes"] = outcomes;
}

CallRecord run_calls(RpcClient& warm_client, const ClientPlan& plan, const std::atomic<bool>& stop,
                     const CallFn& call) {
  // Warm-up calls of a numbered operation (NEXT) would land in the
  // server's ledger as executions of the first seq; NULL exercises the
  // same connection and code paths.
  ClientPlan warm = plan;
  if (operation_row(plan.op).numbered()) warm.op = Operation::kNull;
  Caller warmer(warm);
  for (uint64_t i = 0; i < plan.warmup && !stop.load(); ++i) timed_attempt(warmer, warm_client, plan.first_seq, Clock::now());
  Caller caller(plan);
  if (plan.start_at_ns) sleep_until_realtime(*plan.start_at_ns);
  // Long enough for the slowest launch of many clients on few CPUs; the
  // harness lets them go sooner, or SIGTERMs them at its cell limit.
  if (plan.start_gate) wait_at_start_gate(*plan.start_gate, stop, std::chrono::minutes(10));

  CallRecord record;
  if (!plan.duration_ms) record.calls.reserve(plan.calls);  // with a duration, calls is only a cap
  std::vector<Attempt> attempts;
  // A sleeping thread's timer may fire up to its slack late (50 us by
  // default), which an open loop would count in every call's latency from
  // due: ask for 1 ns, the least, for this thread.
  if (plan.rate_per_s) prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  int64_t started = realtime_ns();
  auto t0 = Clock::now();
  auto time_left = [&] { return !plan.duration_ms || Clock::now() - t0 < std::chrono::milliseconds(*plan.duration_ms); };
  for (uint64_t i = 0; i < plan.calls && !stop.load() && time_left(); ++i) {
    uint32_t seq = static_cast<uint32_t>(i) + (operation_row(plan.op).numbered() ? plan.first_seq : 0);
    attempts.clear();
    if (plan.rate_per_s) {
      wait_until_due(t0 + std::chrono::nanoseconds(schedule_ns(i, *plan.rate_per_s)), stop);
      if (stop.load()) break;
    }
    call(caller, seq, t0, &attempts);
    add_call(record, seq, attempts);
  }
  int64_t wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
  getrusage(RUSAGE_SELF, &after);
  fill_header(record, plan, stop.load() && record.calls.size() < plan.calls, started, wall_ns, before, after);
  return record;
}

}  // namespace

CallRecord run_plan(RpcClient& client, const ClientPlan& plan, const std::atomic<bool>& stop) {
  return run_calls(client, plan, stop, [&client](Caller& caller, uint32_t seq, Clock::time_point t0,
                                                 std::vector<Attempt>* attempts) {
    attempts->push_back(timed_attempt(caller, client, seq, t0));
  });
}

CallRecord run_plan(AppRetry& retry, const ClientPlan& plan, const std::atomic<bool>& stop) {
  return run_calls(retry.client(), plan, stop, [&retry](Caller& caller, uint32_t seq, Clock::time_point t0,
                                                        std::vector<Attempt>* attempts) {
    retry.call([&](RpcClient& client) { return timed_attempt(caller, client, seq, t0); }, attempts);
  });
}

}  // namespace rpclab
