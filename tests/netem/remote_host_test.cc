// The pure parts of --server-host: the target's syntax, ssh's failures put
// into one sentence with the fix, and what the server's end can apply.
#include <gtest/gtest.h>

#include "netem/faults/netem_qdisc.h"
#include "netem/faults/remote_faults.h"
#include "process/remote_host.h"
#include "netem/config/fault_profile.h"

namespace rpclab::netem {
using namespace rpclab::process;  // the process layer (process/) the netem code runs on
namespace {

TEST(SshTarget, ParsesUserHostAndPort) {
  auto t = parse_ssh_target("alice@lab-srv:2222");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->user, "alice");
  EXPECT_EQ(t->host, "lab-srv");
  EXPECT_EQ(t->port, 2222);
  EXPECT_EQ(t->text(), "alice@lab-srv:2222");
  auto bare = parse_ssh_target("10.9.0.2");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->user, "");
  EXPECT_EQ(bare->port, 0);
  auto v6 = parse_ssh_target("root@[fd00::2]:22");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "fd00::2");
  EXPECT_EQ(v6->text(), "root@[fd00::2]:22");
}

TEST(SshTarget, RefusesWhatSshWouldMisread) {
  for (const char* bad : {"", "@host", "host:", "host:0", "host:70000", "host:22x", "fd00::2", "-oProxyCommand=x",
                          "a b", "[fd00::2"})
    EXPECT_FALSE(parse_ssh_target(bad)) << bad;
}

TEST(SshFailure, SaysWhatAndHowToFixIt) {
  SshTarget t = *parse_ssh_target("root@srv:2200");
  EXPECT_NE(explain_ssh_failure(t, "Host key verification failed.\n").find("ssh-keyscan -p 2200 srv"),
            std::string::npos);
  EXPECT_NE(explain_ssh_failure(t, "@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@\n").find("has changed"),
            std::string::npos);
  EXPECT_NE(explain_ssh_failure(t, "root@srv: Permission denied (publickey).\n").find("ssh-copy-id -p 2200"),
            std::string::npos);
  EXPECT_NE(explain_ssh_failure(t, "ssh: connect to host srv port 2200: Connection refused\n").find("cannot reach"),
            std::string::npos);
  EXPECT_NE(explain_ssh_failure(t, "ssh: Could not resolve hostname srv: Name or service not known\n")
                .find("cannot resolve srv"),
            std::string::npos);
  EXPECT_NE(explain_ssh_failure(t, "kex_exchange_identification: read: Connection reset by peer\n")
                .find("Connection reset by peer"),
            std::string::npos);
}

TEST(RemoteFaults, WithNftablesTheServersEndDuplicatesWhatItSendsAndDropsWhatItReceives) {
  auto refusal = [](const char* profile) { return remote_fault_refusal(parse_profile(profile, "x"), BackendKind::kNftables); };
  EXPECT_EQ(refusal("dup=5\ndirection=to-client\n"), "");
  EXPECT_EQ(refusal("loss=5\ndirection=to-server\n"), "");
  EXPECT_NE(refusal("dup=5\n").find("--direction to-client"), std::string::npos);
  EXPECT_NE(refusal("loss=5\ndirection=to-client\n").find("--direction to-server"), std::string::npos);
  EXPECT_NE(refusal("delay_ms=40\ndirection=to-client\n").find("delay"), std::string::npos);
}

TEST(RemoteFaults, WithNetemEveryDirectionAndDelayAndReorderingApply) {
  auto refusal = [](const char* profile) { return remote_fault_refusal(parse_profile(profile, "x"), BackendKind::kNetem); };
  EXPECT_EQ(refusal("dup=5\n"), "");
  EXPECT_EQ(refusal("loss=5\ndirection=to-client\n"), "");
  EXPECT_EQ(refusal("delay_ms=40\njitter_ms=5\nreorder=25\n"), "");
  EXPECT_EQ(refusal("rate=1mbit\n"), "");
}

TEST(RemoteFaults, NetemOnlyWhereTcSchNetemAndIfbAreAll) {
  EXPECT_EQ(choose_remote_faults("tc\nsch_netem\nifb\n").kind, BackendKind::kNetem);
  Choice none = choose_remote_faults("tc\n");  // this machine's kernel
  EXPECT_EQ(none.kind, BackendKind::kNftables);
  EXPECT_NE(none.reason.find("sch_netem, ifb"), std::string::npos) << none.reason;
  EXPECT_EQ(choose_remote_faults("tc\nsch_netem\n").kind, BackendKind::kNftables) << "ingress needs ifb";
  EXPECT_EQ(choose_remote_faults("sch_netem\nifb\n").kind, BackendKind::kNftables) << "no tc";
  std::string probe = remote_netem_probe_line();
  EXPECT_NE(probe.find("modprobe -n -q"), std::string::npos) << "the probe loads nothing";
  EXPECT_EQ(probe.find("tc qdisc"), std::string::npos) << "the probe touches no interface";
}

TEST(RemoteFaults, NetemGoesOnTheEgressAndThroughAnIfbOnTheIngressWithTheLocalArguments) {
  FaultSpec both = parse_profile("delay_ms=40\nreorder=25\ndup=5\n", "x");
  auto c = remote_netem_commands(both, "data0", false);
  ASSERT_EQ(c.size(), 6u);
  EXPECT_EQ(c[0], netem_qdisc_argv(both, "data0", false)) << "the same spec as a local netem cell";
  EXPECT_EQ(c[1], (std::vector<std::string>{"ip", "link", "add", "rpclab-ifb0", "type", "ifb"}));
  EXPECT_EQ(c[2], (std::vector<std::string>{"ip", "link", "set", "dev", "rpclab-ifb0", "up"}));
  EXPECT_EQ(c[3], (std::vector<std::string>{"tc", "qdisc", "replace", "dev", "data0", "handle", "ffff:", "ingress"}));
  EXPECT_EQ(c[4], (std::vector<std::string>{"tc", "filter", "add", "dev", "data0", "parent", "ffff:", "protocol", "all",
                                            "matchall", "action", "mirred", "egress", "redirect", "dev", "rpclab-ifb0"}));
  EXPECT_EQ(c[5], netem_qdisc_argv(both, "rpclab-ifb0", false));
  auto to_client = remote_netem_commands(parse_profile("loss=5\ndirection=to-client\n", "x"), "data0", true);
  ASSERT_EQ(to_client.size(), 1u) << "no ifb when the ingress is left alone";
  EXPECT_EQ(to_client[0][4], "data0");
  EXPECT_EQ(remote_netem_commands(parse_profile("loss=5\ndirection=to-server\n", "x"), "data0", true).size(), 5u);
}

TEST(RemoteFaults, RemovalTakesOnlyWhatRpclabAddedAsRootThere) {
  std::string r = remote_fault_removal("data0", "sudo -n");
  EXPECT_NE(r.find("sudo -n tc qdisc show dev data0 root 2>/dev/null | grep -q netem && sudo -n tc qdisc del dev data0 root"),
            std::string::npos) << "a root qdisc that is not netem is the user's: " << r;
  EXPECT_NE(r.find("sudo -n tc qdisc del dev data0 ingress"), std::string::npos) << r;
  EXPECT_NE(r.find("sudo -n ip link del rpclab-ifb0"), std::string::npos) << r;
  EXPECT_NE(r.find("sudo -n nft delete table netdev rpclab"), std::string::npos) << r;
  EXPECT_EQ(remote_fault_removal("data0", "").find("sudo"), std::string::npos);
}

}  // namespace
}  // namespace rpclab::netem
