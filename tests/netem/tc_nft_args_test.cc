// The exact commands the netem and nftables backends run.
#include <gtest/gtest.h>

#include "netem/config/fault_profile.h"
#include "netem/spec/fault_spec.h"
#include "netem/events/link_event_rules.h"
#include "netem/faults/netem_qdisc.h"
#include "netem/faults/nft_rules.h"

namespace rpclab::netem {
namespace {

using Argv = std::vector<std::string>;

TEST(NetemArgs, LossAndDuplicate) {
  FaultSpec s = parse_profile("loss=5\ndup=1.5\n", "x");
  EXPECT_EQ(netem_qdisc_argv(s, "veth-cli", false),
            (Argv{"tc", "qdisc", "replace", "dev", "veth-cli", "root", "netem", "limit", "10000", "loss", "random",
                  "5%", "duplicate", "1.5%"}));
}

TEST(NetemArgs, EveryOption) {
  FaultSpec s = parse_profile(
      "loss=0.5\nloss_corr=25\ndup=1\ndelay_ms=40\njitter_ms=5\nreorder=1\ncorrupt=0.1\nrate=10mbit\nseed=9\n", "x");
  EXPECT_EQ(netem_qdisc_argv(s, "veth-srv", true),
            (Argv{"tc", "qdisc", "replace", "dev", "veth-srv", "root", "netem", "limit", "10000", "delay", "40ms",
                  "5ms", "loss", "random", "0.5%", "25%", "duplicate", "1%", "reorder", "1%", "corrupt", "0.1%",
                  "rate", "10mbit", "seed", "9"}));
  // Debian 12's tc has no seed: it is left out, not passed to fail.
  Argv without = netem_qdisc_argv(s, "veth-srv", false);
  EXPECT_EQ(std::find(without.begin(), without.end(), "seed"), without.end());
}

TEST(NetemArgs, GilbertElliottIsPositional) {
  FaultSpec s = parse_profile("ge_p=1\nge_r=30\n", "x");
  EXPECT_EQ(netem_qdisc_argv(s, "v", false),
            (Argv{"tc", "qdisc", "replace", "dev", "v", "root", "netem", "limit", "10000", "loss", "gemodel", "1%",
                  "30%"}));
}

TEST(NetemArgs, SeedInUsage) {
  EXPECT_FALSE(netem_usage_has_seed("Usage: ... netem [ limit PACKETS ]\n [ loss random PERCENT ]"));
  EXPECT_TRUE(netem_usage_has_seed("Usage: ... netem [ limit PACKETS ]\n [ seed SEED ]"));
}

TEST(NftArgs, ThresholdIsPartsPerMillion) {
  EXPECT_EQ(nft_threshold(5), 50000u);
  EXPECT_EQ(nft_threshold(0.5), 5000u);
  EXPECT_EQ(nft_threshold(100), 1000000u);
}

TEST(NftArgs, ClientEndWithLossAndDup) {
  FaultSpec s = parse_profile("loss=5\ndup=2\n", "x");
  NftEnd cli{"veth-cli", "to-server", "to-client", true, true};
  std::vector<Argv> expected = {
      {"nft", "add", "table", "netdev", "rpclab"},
      {"nft", "add", "chain", "netdev", "rpclab", "egress",
       "{ type filter hook egress device \"veth-cli\" priority 0 ; }"},
      {"nft", "add", "rule", "netdev", "rpclab", "egress", "meta", "protocol", "ip", "meta", "mark", "!=",
       "0x52504c42", "counter", "comment", "\"to-server offered\""},
      {"nft", "add", "rule", "netdev", "rpclab", "egress", "meta", "protocol", "ip", "meta", "mark", "!=",
       "0x52504c42", "numgen", "random", "mod", "1000000", "<", "20000", "counter", "meta", "mark", "set",
       "0x52504c42", "dup", "to", "\"veth-cli\"", "meta", "mark", "set", "0", "comment", "\"to-server dup\""},
      {"nft", "add", "chain", "netdev", "rpclab", "ingress",
       "{ type filter hook ingress device \"veth-cli\" priority 0 ; }"},
      {"nft", "add", "rule", "netdev", "rpclab", "ingress", "meta", "protocol", "ip", "counter", "comment",
       "\"to-client arrived\""},
      {"nft", "add", "rule", "netdev", "rpclab", "ingress", "meta", "protocol", "ip", "numgen", "random", "mod",
       "1000000", "<", "50000", "counter", "drop", "comment", "\"to-client drop\""},
  };
  EXPECT_EQ(nft_commands(s, cli), expected);
}

// nft refuses `numgen random mod 1000000 < 1000000` (out of range): at
// 100% every packet is dropped (or copied) with no draw at all.
TEST(NftArgs, AHundredPercentDrawsNothing) {
  FaultSpec s = parse_profile("loss=100\ndup=100\n", "x");
  NftEnd cli{"veth-cli", "to-server", "to-client", true, true};
  auto cmds = nft_commands(s, cli);
  ASSERT_EQ(cmds.size(), 7u);
  for (const auto& c : cmds) EXPECT_EQ(std::find(c.begin(), c.end(), "numgen"), c.end()) << testing::PrintToString(c);
  EXPECT_EQ(cmds.back(), (Argv{"nft", "add", "rule", "netdev", "rpclab", "ingress", "meta", "protocol", "ip",
                               "counter", "drop", "comment", "\"to-client drop\""}));
}

TEST(NftArgs, UnimpairedDirectionOnlyCounts) {
  FaultSpec s = parse_profile("loss=5\ndup=2\ndirection=to-server\n", "x");
  NftEnd srv{"veth-srv", "to-client", "to-server", false, true};
  auto cmds = nft_commands(s, srv);
  ASSERT_EQ(cmds.size(), 6u);  // table, egress chain + counter, ingress chain + counter + drop
  for (const auto& c : cmds) EXPECT_EQ(std::find(c.begin(), c.end(), "dup"), c.end());
  EXPECT_EQ(cmds.back().back(), "\"to-server drop\"");
}

// Link events: a table (nft) or ingress qdisc (tc) of their own per end,
// at priority 10, after the steady faults' chain.
TEST(LinkEventArgs, NftTableOfItsOwnInOneCommand) {
  EXPECT_EQ(nft_event_table_argv(kPartitionTable, "veth-srv", "counter drop", "partition"),
            (Argv{"nft", "add table netdev rpclab-partition ; add chain netdev rpclab-partition ingress { type "
                         "filter hook ingress device \"veth-srv\" priority 10 ; } ; add rule netdev "
                         "rpclab-partition ingress counter drop comment \"partition\""}));
  EXPECT_EQ(nft_list_table_argv(kResetTable), (Argv{"nft", "-j", "list", "table", "netdev", "rpclab-reset"}));
  EXPECT_EQ(nft_delete_table_argv(kResetTable), (Argv{"nft", "delete", "table", "netdev", "rpclab-reset"}));
}

TEST(LinkEventArgs, TcPartitionAndSs) {
  EXPECT_EQ(tc_partition_argvs("veth-cli"),
            (std::vector<Argv>{{"tc", "qdisc", "add", "dev", "veth-cli", "ingress"},
                               {"tc", "filter", "add", "dev", "veth-cli", "ingress", "prio", "1", "matchall", "action",
                                "drop"}}));
  EXPECT_EQ(tc_remove_ingress_argv("veth-cli"), (Argv{"tc", "qdisc", "del", "dev", "veth-cli", "ingress"}));
  EXPECT_EQ(ss_kill_argv("198.18.0.2"), (Argv{"ss", "-K", "-t", "-n", "-H", "dst", "198.18.0.2"}));
  EXPECT_EQ(count_socket_lines("ESTAB 0 0 198.18.0.1:7000 198.18.0.2:41234\n\n  \nESTAB 0 0 a b\n"), 2u);
  EXPECT_EQ(count_socket_lines(""), 0u);
}

}  // namespace
}  // namespace rpclab::netem
