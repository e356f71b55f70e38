// The field table drives everything a steady fault field goes through: for
// every row, a profile line sets it, JSON carries it both ways, the range
// check names it, the summary shows it, and choose_backend asks its row
// which backends can apply it. A row added to the table is tested here
// without a line of this file changing.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "netem/config/backend_choice.h"
#include "netem/config/fault_config.h"
#include "netem/spec/fault_fields.h"
#include "netem_test_util.h"

namespace rpclab::netem {
namespace {

// A value in range for the row, as profile text (fields it needs set too).
std::string profile_for(const FaultField& f) {
  switch (f.unit) {
    case FieldUnit::kPercent:
    case FieldUnit::kMilliseconds: {
      std::string text = fmt::format("{}=7\n", f.profile_key);
      // What it needs, and its upper bound when that is another field.
      const char* other = f.needs ? f.needs : f.max_key;  // jitter_ms names delay_ms as both
      if (other) text = fmt::format("{}=9\n", other) + text;
      return text;
    }
    case FieldUnit::kTcRate: return fmt::format("{}=10mbit\n", f.profile_key);
    case FieldUnit::kDirection: return fmt::format("{}=to-client\n", f.profile_key);
    case FieldUnit::kSeed: return fmt::format("{}=42\n", f.profile_key);
  }
  return "";
}

std::string error_of(const std::string& profile) { return testing::profile_error(profile); }

Capabilities machine(bool host_netem) {
  Capabilities c;
  c.root = c.netns = c.nftables = c.uml = true;
  c.host_netem = host_netem;
  return c;
}

TEST(FaultFields, EveryRowParsesRoundTripsChecksAndSummarizes) {
  for (const FaultField& f : fault_fields()) {
    SCOPED_TRACE(f.profile_key);
    FaultSpec s = parse_profile(profile_for(f), "t");
    EXPECT_EQ(find_field_by_profile_key(f.profile_key), &f);
    EXPECT_EQ(find_field_by_json_key(f.json_key), &f);
    // JSON carries it under its key, and back.
    nlohmann::json j = s;
    ASSERT_TRUE(j.contains(f.json_key)) << j;
    EXPECT_EQ(nlohmann::json(j.get<FaultSpec>()), j);
    EXPECT_EQ(f.to_json(j.get<FaultSpec>()), f.to_json(s));
    if (!f.summary_word) {
      EXPECT_FALSE(f.acts(s)) << "a setting is not an impairment";
      continue;
    }
    // An impairment: it acts, its summary shows it, empty() sees it.
    EXPECT_TRUE(f.acts(s));
    EXPECT_FALSE(is_empty(s));
    EXPECT_NE(summary(s).find(f.summary(s)), std::string::npos) << summary(s);
    EXPECT_EQ(f.summary(s).rfind(f.summary_word, 0), 0u) << f.summary(s);
    // Which backends apply it: its row, read by unsupported_by and choose_backend.
    for (BackendKind k : {BackendKind::kNetem, BackendKind::kNftables}) {
      auto lacks = unsupported_by(s, k);
      bool can = (f.backends & backend_bit(k)) != 0;
      EXPECT_EQ(std::find(lacks.begin(), lacks.end(), f.what) == lacks.end(), can) << backend_name(k);
    }
    BackendKind chosen = choose_backend("auto", s, machine(false)).kind;
    EXPECT_EQ(chosen, (f.backends & kByNftables) ? BackendKind::kNftables : BackendKind::kUmlNetem);
  }
}

TEST(FaultFields, EveryNumberRowRefusesOutOfRangeNamingItself) {
  for (const FaultField& f : fault_fields()) {
    if (f.unit != FieldUnit::kPercent && f.unit != FieldUnit::kMilliseconds) continue;
    SCOPED_TRACE(f.profile_key);
    double too_big = f.max_key ? 10 : f.max + 1;  // the field it is bounded by is set to 9 below
    std::string prefix = f.max_key ? fmt::format("{}=9\n", f.max_key) : "";
    std::string e = error_of(prefix + fmt::format("{}={}\n", f.profile_key, too_big));
    EXPECT_NE(e.find(fmt::format("{} = {}: must be between 0 and", f.profile_key, too_big)), std::string::npos) << e;
    e = error_of(fmt::format("{}=-1\n", f.profile_key));
    EXPECT_NE(e.find(fmt::format("{} = -1", f.profile_key)), std::string::npos) << e;
    e = error_of(fmt::format("{}=many\n", f.profile_key));
    EXPECT_NE(e.find(fmt::format("{} = \"many\": not a number", f.profile_key)), std::string::npos) << e;
  }
}

TEST(FaultFields, UnknownKeyListsEveryRowAndEvent) {
  std::string e = error_of("colour=red\n");
  for (const FaultField& f : fault_fields()) EXPECT_NE(e.find(f.profile_key), std::string::npos) << f.profile_key;
  EXPECT_NE(e.find("event"), std::string::npos) << e;
}

TEST(FaultFields, ChoiceFollowsTheRowsAndEventKinds) {
  // netem resets only for a while (an iptables rule, no instant ss -K);
  // nftables can partition and reset but not delay, and is preferred for a
  // reset where it can do the rest.
  FaultSpec reset = parse_profile("event = reset at=1s\n", "t");
  EXPECT_EQ(choose_backend("auto", reset, machine(true)).kind, BackendKind::kNftables);
  EXPECT_THROW(choose_backend("netem", reset, machine(true)), SpecError);
  FaultSpec lasting = parse_profile("event = reset at=1s for=200ms\n", "t");
  EXPECT_EQ(choose_backend("auto", lasting, machine(true)).kind, BackendKind::kNftables);
  EXPECT_EQ(choose_backend("netem", lasting, machine(true)).kind, BackendKind::kNetem);
  FaultSpec mixed = parse_profile("delay_ms=10\nevent = reset at=1s\n", "t");
  try {
    choose_backend("auto", mixed, machine(true));
    FAIL() << "no backend applies delay and reset";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("nftables cannot do delay"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot do reset"), std::string::npos) << e.what();
  }
  FaultSpec partition = parse_profile("delay_ms=10\nevent = partition at=1s for=1s\n", "t");
  EXPECT_EQ(choose_backend("auto", partition, machine(false)).kind, BackendKind::kUmlNetem);
  // Server events need no backend, and no root.
  FaultSpec crash = parse_profile("event = server-crash at=1s for=500ms\n", "t");
  Capabilities user;
  EXPECT_EQ(choose_backend("auto", crash, user).kind, BackendKind::kNone);
  EXPECT_FALSE(is_empty(crash));
  EXPECT_FALSE(has_link_faults(crash));
}

}  // namespace
}  // namespace rpclab::netem
