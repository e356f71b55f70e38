// `rpclab doctor`'s wording, on capabilities set by hand: every line says
// what was checked and how, and what could not be checked says so and why
// instead of "no".
#include <gtest/gtest.h>

#include "netem/topology/capabilities.h"
#include "netem/topology/capabilities_report.h"

namespace rpclab::netem {
namespace {

// The report's line for `what`, from its first column to the end of line.
std::string line_of(const std::string& report, const std::string& what) {
  size_t at = report.find("  " + what + " ");
  if (at == std::string::npos) return "";
  return report.substr(at + 2, report.find('\n', at) - at - 2);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Capabilities root_machine() {  // Debian 12 CI: root, no sch_netem, nftables, UML
  Capabilities c;
  c.root = c.netns = c.nftables = c.uml = c.rpcbind_installed = c.sockperf = c.gnuplot = true;
  c.rpcbind_running = true;
  c.uml_kernel = "6.1.176";
  return c;
}

TEST(Capabilities, AsAUserTheKernelFeaturesAreUnknownAndSayTheyNeedRoot) {
  Capabilities user;  // not root: nothing of the kernel was tried
  std::string report = describe(user);
  for (const char* what : {"network namespaces", "netem in the host kernel", "nftables netdev (loss, dup)"}) {
    std::string line = line_of(report, what);
    EXPECT_TRUE(has(line, "unknown (needs root to check: ")) << what << ": " << report;
    EXPECT_FALSE(has(line, " no ")) << what << ": " << line;
  }
  EXPECT_TRUE(has(line_of(report, "netem in the host kernel"), "tc qdisc add")) << report;
  EXPECT_TRUE(has(report, "fault backends usable: none as this user")) << report;
}

TEST(Capabilities, WithoutANamespaceToTryInTheKernelFeaturesAreNotChecked) {
  Capabilities c = root_machine();
  c.netns = c.nftables = false;
  std::string report = describe(c);
  EXPECT_TRUE(has(line_of(report, "network namespaces"), "no (`ip netns add` of a throwaway namespace failed)"))
      << report;
  EXPECT_TRUE(has(line_of(report, "netem in the host kernel"), "unknown (not checked: ")) << report;
  EXPECT_FALSE(has(report, "has no sch_netem")) << "netem was never tried: " << report;
}

TEST(Capabilities, RpcbindBinariesWithoutADaemonAreNotAnRpcbind) {
  Capabilities c = root_machine();
  c.rpcbind_running = false;
  std::string report = describe(c);
  EXPECT_TRUE(has(line_of(report, "rpcbind + rpcinfo installed"), "yes (")) << report;
  EXPECT_TRUE(has(line_of(report, "rpcbind daemon running"), "no (`rpcinfo -p` got no answer")) << report;
  EXPECT_TRUE(has(report, "`rpclab-server --rpcbind` cannot register")) << report;
  c.rpcbind_installed = false;
  c.rpcbind_running.reset();
  report = describe(c);
  EXPECT_TRUE(has(line_of(report, "rpcbind daemon running"), "unknown (not checked: rpcinfo is not installed)"))
      << report;
}

TEST(Capabilities, EveryLineSaysHowItWasFound) {
  for (const Capabilities& c : {root_machine(), Capabilities{}}) {
    std::string report = describe(c);
    for (const char* what : {"root", "network namespaces", "netem in the host kernel", "nftables netdev (loss, dup)",
                             "user-mode-linux + netem", "rpcbind + rpcinfo installed", "rpcbind daemon running",
                             "sockperf", "gnuplot"}) {
      std::string line = line_of(report, what);
      ASSERT_FALSE(line.empty()) << what << " is missing: " << report;
      EXPECT_TRUE(has(line, " (") && line.back() == ')') << "says no how: " << line;
    }
    EXPECT_TRUE(has(line_of(report, "user-mode-linux + netem"), "not booted")) << report;
    EXPECT_TRUE(has(line_of(report, "gnuplot"), "not run")) << report;
  }
}

TEST(Capabilities, OnTheCiMachineEverythingIsTriedAndAnswered) {
  std::string report = describe(root_machine());
  EXPECT_TRUE(has(line_of(report, "netem in the host kernel"), "no (`tc qdisc add dev lo root netem` in a throwaway "
                                                               "namespace failed)"))
      << report;
  EXPECT_TRUE(has(line_of(report, "nftables netdev (loss, dup)"), "yes (")) << report;
  EXPECT_FALSE(has(report, "unknown")) << report;
  EXPECT_TRUE(has(report, "fault backends usable: uml-netem, nftables")) << report;
}

}  // namespace
}  // namespace rpclab::netem
