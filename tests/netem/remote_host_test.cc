// The pure parts of --server-host: the target's syntax, ssh's failures put
// into one sentence with the fix, and what the server's end can apply.
#include <gtest/gtest.h>

#include "netem/remote_faults.h"
#include "netem/remote_host.h"

namespace rpclab::netem {
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

TEST(RemoteFaults, TheServersEndDuplicatesWhatItSendsAndDropsWhatItReceives) {
  EXPECT_EQ(remote_fault_refusal(parse_profile("dup=5\ndirection=to-client\n", "x")), "");
  EXPECT_EQ(remote_fault_refusal(parse_profile("loss=5\ndirection=to-server\n", "x")), "");
  EXPECT_NE(remote_fault_refusal(parse_profile("dup=5\n", "x")).find("--direction to-client"), std::string::npos);
  EXPECT_NE(remote_fault_refusal(parse_profile("loss=5\ndirection=to-client\n", "x")).find("--direction to-server"),
            std::string::npos);
  EXPECT_NE(remote_fault_refusal(parse_profile("delay_ms=40\ndirection=to-client\n", "x")).find("delay"),
            std::string::npos);
}

}  // namespace
}  // namespace rpclab::netem
