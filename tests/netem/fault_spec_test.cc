// Fault specs from profile text, JSON and the shipped profiles; every field,
// and the messages for values out of range.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "netem/config/fault_config.h"
#include "netem/config/fault_profile.h"
#include "netem/spec/fault_fields.h"
#include "netem/spec/fault_spec.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {
namespace {

void expect_error(const std::string& text, const std::string& fragment) {
  try {
    parse_profile(text, "t");
    FAIL() << "accepted: " << text;
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(FaultSpec, ParsesEveryKey) {
  FaultSpec s = parse_profile(
      "# comment\nloss=2.5\nloss_corr=25%\ndup = 1\ndelay_ms=40\njitter_ms=5\nreorder=1\ncorrupt=0.1\n"
      "rate=100mbit\ndirection=to-client\nseed=42   # trailing comment\n",
      "all");
  EXPECT_EQ(s.profile, "all");
  EXPECT_DOUBLE_EQ(s.loss_pct, 2.5);
  EXPECT_DOUBLE_EQ(s.loss_corr_pct, 25);
  EXPECT_DOUBLE_EQ(s.dup_pct, 1);
  EXPECT_DOUBLE_EQ(s.delay_ms, 40);
  EXPECT_DOUBLE_EQ(s.jitter_ms, 5);
  EXPECT_DOUBLE_EQ(s.reorder_pct, 1);
  EXPECT_DOUBLE_EQ(s.corrupt_pct, 0.1);
  EXPECT_EQ(s.rate, "100mbit");
  EXPECT_EQ(s.direction, Direction::kToClient);
  ASSERT_TRUE(s.seed);
  EXPECT_EQ(*s.seed, 42u);
  EXPECT_FALSE(is_empty(s));
  EXPECT_FALSE(unsupported_by(s, BackendKind::kNftables).empty());
  EXPECT_TRUE(unsupported_by(s, BackendKind::kNetem).empty());
}

TEST(FaultSpec, ParsesGilbertElliott) {
  FaultSpec s = parse_profile("ge_p=1\nge_r=30\nge_1h=50\nge_1k=0\n", "ge");
  EXPECT_EQ(s.ge_p_pct, 1.0);
  EXPECT_EQ(s.ge_r_pct, 30.0);
  EXPECT_EQ(s.ge_1h_pct, 50.0);
  EXPECT_EQ(s.ge_1k_pct, 0.0);
  EXPECT_EQ(unsupported_by(s, BackendKind::kNftables), std::vector<std::string>{"Gilbert-Elliott loss"});
  EXPECT_EQ(summary(s), "loss gemodel p 1% r 30% 1-h 50% 1-k 0% both");
}

TEST(FaultSpec, RejectsOutOfRangeNamingFieldValueAndRange) {
  expect_error("loss=150", "loss = 150: must be between 0 and 100");
  expect_error("loss=-1", "loss = -1");
  expect_error("dup=101", "dup = 101: must be between 0 and 100");
  expect_error("delay_ms=70000", "delay_ms = 70000: must be between 0 and 60000");
  expect_error("delay_ms=10\njitter_ms=20", "jitter_ms = 20: must be between 0 and 10");
  expect_error("reorder=5", "reorder = 5: needs delay_ms > 0");
  expect_error("corrupt=200", "corrupt = 200");
  expect_error("loss_corr=101", "loss_corr = 101");
  expect_error("ge_p=120", "ge_p = 120");
  expect_error("ge_r=10", "without ge_p");
  expect_error("loss=1\nge_p=1", "not both");
  expect_error("rate=fast", "rate = fast: must be a number with a unit");
}

TEST(FaultSpec, RateUnits) {
  for (const char* ok : {"100mbit", "1.5Gbit", "800kbps", "9600bit"})
    EXPECT_NO_THROW(parse_profile(std::string("rate=") + ok, "t")) << ok;
  for (const char* bad : {"mbit", "100", "1..5mbit", ".5mbit", "5.mbit", "100 mbit", "100furlongs"})
    expect_error(std::string("rate=") + bad, "must be a number with a unit");
}

TEST(FaultSpec, RejectsBadSyntaxWithLineNumbers) {
  expect_error("loss=5\nbogus=1", "line 2: unknown key \"bogus\"");
  expect_error("loss=abc", "line 1: loss = \"abc\": not a number");
  expect_error("just words", "line 1: expected KEY=VALUE");
  expect_error("direction=sideways", "direction = \"sideways\": must be to-server, to-client or both");
  expect_error("seed=-3", "seed = \"-3\"");
  expect_error("loss=1\n# comment\nloss=2", "line 3: loss is given twice (first on line 1)");
}

TEST(FaultSpec, JsonRoundTrip) {
  FaultSpec s = parse_profile("loss=5\ndup=2\ndelay_ms=20\njitter_ms=1\ndirection=to-server\nseed=7\n", "x");
  FaultSpec back = nlohmann::json(s).get<FaultSpec>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(s));
  EXPECT_EQ(back.direction, Direction::kToServer);
  EXPECT_THROW(nlohmann::json({{"loss_pct", 500}}).get<FaultSpec>(), SpecError);
  EXPECT_THROW(nlohmann::json({{"colour", "red"}}).get<FaultSpec>(), SpecError);
  EXPECT_THROW(nlohmann::json({{"loss_pct", "five"}}).get<FaultSpec>(), SpecError);
}

// Specs as records on disk hold them (the fuzz seeds were taken from real
// records) come back byte for byte: --resume matches cells on this JSON.
TEST(FaultSpec, JsonOfRecordsOnDiskIsUnchanged) {
  for (const char* name : {"from-record-none.json", "lossy-dup.json", "bursty-seeded.json", "events.json"}) {
    std::ifstream in(std::string(RPCLAB_SOURCE_DIR) + "/tests/fuzz/corpus/fault_spec_json/" + name);
    ASSERT_TRUE(in) << name;
    nlohmann::json on_disk = nlohmann::json::parse(in);
    EXPECT_EQ(nlohmann::json(on_disk.get<FaultSpec>()).dump(), on_disk.dump()) << name;
  }
}

// A JSON seed is a whole number from 0 to 2^64-1, taken exactly. The float
// case was a fuzz finding (tests/fuzz/regressions/fault_spec_json/).
TEST(FaultSpec, JsonSeedIsAWholeNumber) {
  EXPECT_EQ(*nlohmann::json({{"seed", 18446744073709551615ull}}).get<FaultSpec>().seed, 18446744073709551615ull);
  EXPECT_FALSE(nlohmann::json({{"seed", nullptr}}).get<FaultSpec>().seed);
  for (const nlohmann::json& bad : {nlohmann::json(-1), nlohmann::json(1.5), nlohmann::json(1e30), nlohmann::json("7")})
    EXPECT_THROW(nlohmann::json({{"seed", bad}}).get<FaultSpec>(), SpecError) << bad.dump();
}

TEST(FaultSpec, EmptyAndSummary) {
  FaultSpec none;
  EXPECT_TRUE(is_empty(none));
  EXPECT_TRUE(unsupported_by(none, BackendKind::kNftables).empty());
  EXPECT_EQ(summary(none), "none");
  FaultSpec s = parse_profile("loss=5\ndup=1\n", "x");
  EXPECT_TRUE(unsupported_by(s, BackendKind::kNftables).empty());
  EXPECT_EQ(summary(s), "loss 5% dup 1% both");
}

TEST(Profiles, ShippedProfilesLoadAndValidate) {
  EXPECT_EQ(load_profile("lossy-lan").loss_pct, 1);
  EXPECT_EQ(load_profile("dup-storm").dup_pct, 5);
  FaultSpec lossy_dup = load_profile("lossy-dup");
  EXPECT_EQ(lossy_dup.loss_pct, 5);
  EXPECT_EQ(lossy_dup.dup_pct, 5);
  FaultSpec wan = load_profile("wan");
  EXPECT_EQ(wan.delay_ms, 40);
  EXPECT_EQ(wan.jitter_ms, 5);
  EXPECT_EQ(wan.loss_pct, 0.5);
  EXPECT_EQ(wan.reorder_pct, 1);
  EXPECT_TRUE(load_profile("bursty").ge_p_pct.has_value());
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(profiles_dir())) {
    EXPECT_NO_THROW(load_profile(e.path().string())) << e.path();
    ++count;
  }
  EXPECT_GE(count, 5);
}

TEST(Profiles, UnknownProfileListsTheKnownOnes) {
  try {
    load_profile("no-such-profile");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("lossy-lan"), std::string::npos) << e.what();
  }
}

TEST(Direction, Names) {
  for (auto d : {Direction::kToServer, Direction::kToClient, Direction::kBoth})
    EXPECT_EQ(parse_direction(direction_name(d)), d);
  EXPECT_FALSE(parse_direction("up"));
}

}  // namespace
}  // namespace rpclab::netem
