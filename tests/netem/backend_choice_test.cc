// Which backend runs a spec, and the errors for requests that cannot work.
#include <gtest/gtest.h>

#include "netem/config/backend_choice.h"
#include "netem/config/fault_profile.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {
namespace {

Capabilities ci_machine() {  // Debian 12 CI: root, no sch_netem, nftables, UML
  Capabilities c;
  c.root = c.netns = c.nftables = c.uml = true;
  c.uml_kernel = "6.1.176";
  return c;
}

std::string error_of(const std::string& requested, const FaultSpec& spec, const Capabilities& caps) {
  try {
    choose_backend(requested, spec, caps);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

TEST(ChooseBackend, AutoOnCi) {
  FaultSpec loss = parse_profile("loss=5\ndup=5\n", "x");
  EXPECT_EQ(choose_backend("auto", loss, ci_machine()).kind, BackendKind::kNftables);
  FaultSpec wan = parse_profile("delay_ms=40\n", "x");
  Choice c = choose_backend("auto", wan, ci_machine());
  EXPECT_EQ(c.kind, BackendKind::kUmlNetem);
  EXPECT_NE(c.reason.find("delay"), std::string::npos) << c.reason;
  EXPECT_EQ(choose_backend("auto", FaultSpec{}, ci_machine()).kind, BackendKind::kNone);
}

TEST(ChooseBackend, AutoPrefersHostNetem) {
  Capabilities caps = ci_machine();
  caps.host_netem = true;
  EXPECT_EQ(choose_backend("auto", parse_profile("loss=1\n", "x"), caps).kind, BackendKind::kNetem);
}

TEST(ChooseBackend, ExplicitRequestsThatCannotWork) {
  FaultSpec wan = parse_profile("delay_ms=40\nloss=1\n", "x");
  std::string e = error_of("nftables", wan, ci_machine());
  EXPECT_NE(e.find("nftables cannot apply delay (it applies loss, duplication"), std::string::npos) << e;
  EXPECT_NE(e.find("use netem or uml-netem"), std::string::npos) << e;
  e = error_of("netem", wan, ci_machine());
  EXPECT_NE(e.find("no sch_netem"), std::string::npos) << e;
  EXPECT_NE(e.find("uml-netem"), std::string::npos) << e;
  Capabilities no_uml = ci_machine();
  no_uml.uml = false;
  e = error_of("uml-netem", wan, no_uml);
  EXPECT_NE(e.find("apt-get install user-mode-linux"), std::string::npos) << e;
  e = error_of("auto", wan, no_uml);
  EXPECT_NE(e.find("no fault backend"), std::string::npos) << e;
  Capabilities no_nft = ci_machine();
  no_nft.nftables = false;
  e = error_of("nftables", parse_profile("dup=5\n", "x"), no_nft);
  EXPECT_NE(e.find("5.16"), std::string::npos) << e;
  EXPECT_NE(e.find("use uml-netem"), std::string::npos) << e;
  Capabilities user = ci_machine();
  user.root = false;
  EXPECT_NE(error_of("auto", wan, user).find("need root"), std::string::npos);
  EXPECT_NE(error_of("carrier-pigeon", wan, ci_machine()).find("must be auto"), std::string::npos);
}

TEST(BackendNames, RoundTrip) {
  for (auto k : {BackendKind::kNone, BackendKind::kNetem, BackendKind::kUmlNetem, BackendKind::kNftables})
    EXPECT_EQ(parse_backend(backend_name(k)), k);
  EXPECT_FALSE(parse_backend("auto"));
}

}  // namespace
}  // namespace rpclab::netem
