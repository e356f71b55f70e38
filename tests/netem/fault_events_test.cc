// Timed events in fault specs: the `event =` profile syntax, JSON, the
// summary, and every validation error (negative times, an event longer
// than its period, events of one group that can overlap).
#include <gtest/gtest.h>

#include "netem/config/fault_config.h"
#include "netem/spec/fault_fields.h"
#include "netem/spec/fault_spec.h"
#include "netem_test_util.h"

namespace rpclab::netem {
namespace {

std::string error_of(const std::string& profile) { return testing::profile_error(profile); }

void expect_error(const std::string& profile, const std::string& fragment) {
  std::string e = error_of(profile);
  EXPECT_NE(e.find(fragment), std::string::npos) << profile << " -> " << (e.empty() ? "(accepted)" : e);
}

TEST(FaultEvents, ParsesEveryParameter) {
  FaultSpec s = parse_profile(
      "loss=1\n"
      "event = partition at=2s for=1500ms every=5s jitter=100ms   # a comment\n"
      "event = reset at=2500ms\n"
      "event=server-crash at=1s for=1s every=10s\n",
      "t");
  ASSERT_EQ(s.events.size(), 3u);
  const FaultEvent& p = s.events[0];
  EXPECT_STREQ(p.kind->name, "partition");
  EXPECT_EQ(p.at_ms, 2000);
  EXPECT_EQ(p.for_ms, 1500);
  EXPECT_EQ(p.every_ms, 5000);
  EXPECT_EQ(p.jitter_ms, 100);
  EXPECT_STREQ(s.events[1].kind->name, "reset");
  EXPECT_EQ(s.events[1].for_ms, 0);  // one instant
  EXPECT_FALSE(s.events[1].every_ms);
  EXPECT_EQ(s.events[2].kind->target, EventTarget::kServer);
  EXPECT_EQ(summary(s),
            "loss 1% both partition at 2000ms for 1500ms every 5000ms jitter 100ms reset at 2500ms "
            "server-crash at 1000ms for 1000ms every 10000ms");
  EXPECT_TRUE(has_link_faults(s));
}

TEST(FaultEvents, JsonRoundTripAndNoEventsKeyWithoutEvents) {
  FaultSpec s = parse_profile("event = server-stall at=0s for=1500ms every=4s\nevent = reset at=1s for=200ms\n", "t");
  nlohmann::json j = s;
  ASSERT_EQ(j["events"].size(), 2u);
  EXPECT_EQ(j["events"][0], (nlohmann::json{{"kind", "server-stall"}, {"at_ms", 0}, {"for_ms", 1500},
                                            {"every_ms", 4000}, {"jitter_ms", 0}}));
  EXPECT_EQ(nlohmann::json(j.get<FaultSpec>()), j);
  // Records written before events existed have no "events": a spec without
  // events must write exactly what they hold, or --resume would not match.
  EXPECT_FALSE(nlohmann::json(parse_profile("loss=5\n", "t")).contains("events"));
  auto event_json = [&](nlohmann::json e) {
    nlohmann::json k = j;
    k["events"] = nlohmann::json::array({e});
    return k;
  };
  nlohmann::json good = j["events"][0];
  for (auto [field, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"at_ms", 1.5}, {"for_ms", -1}, {"kind", "meteor"}, {"colour", "red"}, {"every_ms", "soon"}}) {
    nlohmann::json bad = good;
    bad[field] = value;
    EXPECT_THROW(event_json(bad).get<FaultSpec>(), SpecError) << bad;
  }
}

TEST(FaultEvents, SyntaxErrorsNameTheEventAndTheFix) {
  expect_error("event =",
               "give a kind (partition, reset, server-crash, server-stall, server-reset, server-out-of-pool, server-slow)");
  expect_error("event = meteor at=1s", "event \"meteor\": unknown kind (known: partition, reset");
  expect_error("event = partition at2s for=1s", "event partition: \"at2s\" is not key=value");
  expect_error("event = partition at=1s for=1s colour=red",
               "unknown parameter \"colour\" (known: at, for, every, jitter, target, delay)");
  expect_error("event = partition at=1s at=2s for=1s", "event partition: at is given twice");
  expect_error("event = partition at=2000 for=1s", "at = \"2000\": a duration needs a unit, ms or s");
  expect_error("event = partition at=soon for=1s", "at = \"soon\": a duration needs a unit");
  expect_error("event = partition at=s for=1s", "at = \"s\": not a duration");
  expect_error("event = partition at=2.5ms for=1s", "at = 2.5ms: must be whole milliseconds");
  expect_error("event = partition at=90000s for=1s", "at = 90000s: must be at most 24 hours");
  expect_error("loss=1\nevent = reset at=1s\nbogus=1", "line 3: unknown key \"bogus\"");
  expect_error("event = reset at=1s\nevent = meteor", "line 2: event \"meteor\"");
}

TEST(FaultEvents, NegativeTimesAreRefused) {
  expect_error("event = partition at=-1s for=1s", "event partition: at = -1s: must not be negative");
  expect_error("event = partition at=1s for=-5ms", "for = -5ms: must not be negative");
  expect_error("event = reset at=1s every=-3s", "every = -3s: must not be negative");
  expect_error("event = reset at=1s every=0ms", "every = 0ms: must be between 1ms and 24 hours");
}

TEST(FaultEvents, DurationRules) {
  expect_error("event = partition at=1s", "event partition: needs for=DURATION");
  expect_error("event = server-crash at=1s", "event server-crash: needs for=DURATION");
  EXPECT_EQ(error_of("event = reset at=1s"), "");  // a reset may be one instant
  expect_error("event = partition at=0s for=6s every=5s",
               "for = 6000ms is not shorter than every = 5000ms: each partition would run into the next");
  expect_error("event = partition at=0s for=5s every=5s", "is not shorter than every");
  expect_error("event = server-stall at=0s for=4s every=5s jitter=1s", "for = 4000ms plus jitter = 1000ms");
  EXPECT_EQ(error_of("event = server-stall at=0s for=4s every=5s jitter=999ms"), "");
}

TEST(FaultEvents, OverlapsWithinAGroupAreRefused) {
  // Two one-shots of one kind.
  expect_error("event = partition at=1s for=2s\nevent = partition at=2s for=1s",
               "events \"partition at 1000ms for 2000ms\" and \"partition at 2000ms for 1000ms\" can overlap");
  EXPECT_EQ(error_of("event = partition at=1s for=1s\nevent = partition at=2s for=1s"), "");  // back to back
  // A one-shot inside a later repetition of a repeated one.
  expect_error("event = partition at=0s for=1s every=10s\nevent = partition at=50500ms for=100ms", "can overlap");
  EXPECT_EQ(error_of("event = partition at=0s for=1s every=10s\nevent = partition at=51s for=100ms"), "");
  // Two repeated: gaps between starts come to every multiple of gcd(6 s, 4 s) = 2 s.
  // (starts 0, 6, 12 s and 2, 6, 10 s meet at 6 s; 0, 6, 12 s and 1, 5, 9, 13 s never come within 1 s).
  expect_error("event = partition at=0s for=500ms every=6s\nevent = partition at=2s for=500ms every=4s",
               "can overlap");
  EXPECT_EQ(error_of("event = partition at=0s for=500ms every=6s\nevent = partition at=1s for=500ms every=4s"), "");
  // Jitter widens each window.
  expect_error("event = partition at=1s for=1s\nevent = partition at=0s for=500ms jitter=600ms", "can overlap");
  // Crash and stall both act on the server process; a partition and a reset do not collide.
  expect_error("event = server-crash at=1s for=1s\nevent = server-stall at=1500ms for=1s",
               "can overlap (both act on the server)");
  EXPECT_EQ(error_of("event = partition at=1s for=2s\nevent = reset at=2s for=1s"), "");
}

}  // namespace
}  // namespace rpclab::netem
