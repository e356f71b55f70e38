// The events' timing on a fake clock: the scheduler is a plan over offsets,
// so the test hands it any elapsed times; the runner is driven with time
// points of the test's choosing and a ServerControl that only takes notes.
#include <gtest/gtest.h>

#include <stdexcept>

#include "netem/events/event_runner.h"
#include "netem/config/fault_profile.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {
using namespace rpclab::process;  // the process layer (process/) the netem code runs on
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

std::vector<FaultEvent> events_of(const std::string& profile) { return parse_profile(profile, "t").events; }

std::string describe(const std::vector<EventAction>& actions) {
  std::string out;
  for (const EventAction& a : actions)
    out += (out.empty() ? "" : " ") + std::to_string(a.event) + "#" + std::to_string(a.occurrence) +
           std::string(event_phase_name(a.phase)) + "@" + std::to_string(a.planned.count());
  return out;
}

TEST(EventScheduler, OneShotStartsAndEndsOnTime) {
  EventScheduler s(events_of("event = partition at=2s for=1s\n"), 0);
  EXPECT_EQ(s.next(), milliseconds(2000));
  EXPECT_TRUE(s.due(1999ms).empty());
  EXPECT_EQ(describe(s.due(2000ms)), "0#0start@2000");
  EXPECT_TRUE(s.due(2000ms).empty()) << "handed out once";
  EXPECT_EQ(s.next(), milliseconds(3000));
  EXPECT_EQ(describe(s.due(3500ms)), "0#0end@3000");
  EXPECT_FALSE(s.next());
  EXPECT_TRUE(s.due(100s).empty());
}

TEST(EventScheduler, RepeatedEveryPeriodAndALateCallerGetsEverythingInOrder) {
  EventScheduler s(events_of("event = server-stall at=1s for=500ms every=5s\nevent = reset at=3s every=5s\n"), 0);
  EXPECT_EQ(describe(s.due(1s)), "0#0start@1000");
  EXPECT_EQ(describe(s.due(4s)), "0#0end@1500 1#0start@3000");
  // A caller 10 s late still gets each action once, in planned order.
  EXPECT_EQ(describe(s.due(14s)),
            "0#1start@6000 0#1end@6500 1#1start@8000 0#2start@11000 0#2end@11500 1#2start@13000");
  EXPECT_EQ(s.next(), milliseconds(16000));
}

// A trial that lasts 2 s starts nothing at or after 2 s; an occurrence
// started before then still ends when planned, after it.
TEST(EventScheduler, NothingStartsFromTheHorizonOnAndWhatStartedEnds) {
  EventScheduler s(events_of("event = server-stall at=500ms for=600ms every=700ms\n"), 0);
  s.stop_starting_at(1900ms);
  EXPECT_EQ(describe(s.due(10s)), "0#0start@500 0#0end@1100 0#1start@1200 0#1end@1800");
  EXPECT_FALSE(s.next()) << "the start at 1900 ms is on the horizon: not planned";
  EventScheduler t(events_of("event = server-stall at=500ms for=600ms every=700ms\n"), 0);
  t.stop_starting_at(1901ms);
  EXPECT_EQ(describe(t.due(1901ms)), "0#0start@500 0#0end@1100 0#1start@1200 0#1end@1800 0#2start@1900");
  EXPECT_EQ(describe(t.due(10s)), "0#2end@2500") << "it started before the horizon and ends after it";
  EXPECT_FALSE(t.next());
}

TEST(EventScheduler, JitterIsSeededAndWithinBounds) {
  auto plan = [](uint64_t seed) {
    EventScheduler s(events_of("event = partition at=1s for=100ms every=1s jitter=300ms\n"), seed);
    std::vector<int64_t> starts;
    for (uint64_t k = 0; k < 50; ++k) {
      int64_t start = s.planned_start(0, k).count();
      EXPECT_GE(start, 1000 + 1000 * static_cast<int64_t>(k));
      EXPECT_LE(start, 1300 + 1000 * static_cast<int64_t>(k));
      starts.push_back(start);
    }
    return starts;
  };
  EXPECT_EQ(plan(7), plan(7));
  EXPECT_NE(plan(7), plan(8));
  std::vector<int64_t> offsets;
  for (size_t k = 0; k < 50; ++k) offsets.push_back(plan(7)[k] - 1000 - 1000 * static_cast<int64_t>(k));
  EXPECT_NE(*std::min_element(offsets.begin(), offsets.end()), *std::max_element(offsets.begin(), offsets.end()))
      << "jitter that never varies is no jitter";
}

TEST(EventScheduler, FinishEndsWhatHasStartedOnly) {
  EventScheduler s(events_of("event = partition at=1s for=10s\nevent = server-crash at=5s for=1s\n"), 0);
  EXPECT_EQ(describe(s.due(2s)), "0#0start@1000");
  EXPECT_EQ(describe(s.finish()), "0#0end@11000");
  EXPECT_TRUE(s.due(100s).empty());
  EXPECT_FALSE(s.next());
}

// Takes notes of what the runner asks of the server.
class NotingServer : public ServerControl {
 public:
  std::vector<std::string> calls;
  bool fail_restart = false;
  nlohmann::json kill() override { return note("kill"); }
  nlohmann::json restart() override {
    if (fail_restart) throw std::runtime_error("port in use");
    return note("restart");
  }
  nlohmann::json pause() override { return note("pause"); }
  nlohmann::json resume() override { return note("resume"); }

 private:
  nlohmann::json note(const std::string& what) {
    calls.push_back(what);
    return {{"did", what}};
  }
};

TEST(EventRunner, AppliesServerEventsWhenDueAndRecordsPlannedAndActualTimes) {
  FaultSpec spec = parse_profile("event = server-crash at=1s for=500ms every=3s\n", "t");
  NotingServer server;
  CommandLog log;
  EventRunner runner(spec, {nullptr, {&server}}, log);
  // The clients started 4.1 s ago: the first crash is over, the second due.
  auto now = EventRunner::Clock::now();
  runner.start(now - 4100ms);
  auto next = runner.poll(now);
  EXPECT_EQ(server.calls, (std::vector<std::string>{"kill", "restart", "kill"}));
  ASSERT_TRUE(next);
  double next_in_ms = std::chrono::duration<double, std::milli>(*next - now).count();
  EXPECT_NEAR(next_in_ms, 4500 - 4100, 1);
  runner.finish(now);
  EXPECT_EQ(server.calls.back(), "restart");
  const nlohmann::json& r = runner.record();
  ASSERT_EQ(r.size(), 2u) << r;
  EXPECT_EQ(r[0]["kind"], "server-crash");
  EXPECT_EQ(r[0]["planned_start_ms"], 1000);
  EXPECT_EQ(r[0]["planned_end_ms"], 1500);
  EXPECT_GE(r[0]["start_ms"].get<double>(), 4100);  // applied late, and the record says so
  EXPECT_EQ(r[0]["start"]["did"], "kill");
  EXPECT_GE(r[0]["start"]["took_ms"].get<double>(), 0);
  EXPECT_EQ(r[1]["occurrence"], 1);
  EXPECT_EQ(r[1]["planned_start_ms"], 4000);
  EXPECT_EQ(r[1]["at_end"], true);
  EXPECT_EQ(r[1]["end"]["did"], "restart");
  // Every action is in the commands log with its planned time.
  int comments = 0;
  for (const std::string& line : log.lines()) comments += line.find("# event server-crash") == 0;
  EXPECT_EQ(comments, 4);
}

TEST(EventRunner, AFailedRestartIsRecordedAndThrown) {
  FaultSpec spec = parse_profile("event = server-crash at=0s for=100ms\nevent = server-stall at=1s for=1s\n", "t");
  NotingServer server;
  server.fail_restart = true;
  CommandLog log;
  EventRunner runner(spec, {nullptr, {&server}}, log);
  auto now = EventRunner::Clock::now();
  runner.start(now - 200ms);
  EXPECT_THROW(runner.poll(now), std::runtime_error);
  EXPECT_EQ(runner.record()[0]["end"]["error"], "port in use");
}

TEST(EventRunner, RefusesEventsWithoutTheirTarget) {
  CommandLog log;
  NotingServer server;
  EXPECT_THROW(EventRunner(parse_profile("event = partition at=1s for=1s\n", "t"), {nullptr, {&server}}, log),
               SpecError);
  EXPECT_THROW(EventRunner(parse_profile("event = server-stall at=1s for=1s\n", "t"), {}, log), SpecError);
  EXPECT_NO_THROW(EventRunner(parse_profile("loss=5\n", "t"), {}, log));
}

// What a caller that stopped early never started: an event that never
// happened at all (first 0), and the later occurrences of one that did,
// up to the horizon; a repeating event with no horizon has no last one.
std::string describe(const std::vector<EventScheduler::Unstarted>& u) {
  std::string out;
  for (const auto& x : u)
    out += (out.empty() ? "" : " ") + std::to_string(x.event) + ":" + std::to_string(x.first) + "+" +
           std::to_string(x.count) + "@" + std::to_string(x.planned.count());
  return out;
}

TEST(EventScheduler, UnstartedNamesWhatTheCallsEndedBefore) {
  EventScheduler s(events_of("event = reset at=500ms every=1s\nevent = server-crash at=1s for=1s every=2500ms\n"), 0);
  s.stop_starting_at(5000ms);
  EXPECT_EQ(describe(s.unstarted()), "0:0+5@500 1:0+2@1000") << "before any call";
  s.due(1200ms);
  s.finish();
  EXPECT_EQ(describe(s.unstarted()), "0:1+4@1500 1:1+1@3500");
  EventScheduler open(events_of("event = partition at=2s for=1s every=3s\nevent = reset at=4s\n"), 0);
  EXPECT_EQ(describe(open.unstarted()), "0:0+1@2000 1:0+1@4000");
  open.due(2500ms);
  open.finish();
  EXPECT_EQ(describe(open.unstarted()), "1:0+1@4000") << "without a horizon, later repetitions are not planned";
}

}  // namespace
}  // namespace rpclab::netem
