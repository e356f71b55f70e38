// Counter parsers on output captured from the real tools (fixtures/).
#include <gtest/gtest.h>
#include <algorithm>

#include <fstream>
#include <sstream>

#include "netem/faults/link_counters.h"
#include "netem/events/link_event_rules.h"
#include "netem/faults/netem_qdisc.h"
#include "netem/faults/nft_rules.h"

namespace rpclab::netem {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(RPCLAB_SOURCE_DIR) + "/tests/netem/fixtures/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NftCounters, SenderAndReceiverTables) {
  auto sender = parse_nft_counters(fixture("nft-list-table-sender.json"));
  EXPECT_EQ(sender["to-server offered"].packets, 10000u);
  EXPECT_EQ(sender["to-server offered"].bytes, 740000u);
  EXPECT_EQ(sender["to-server dup"].packets, 515u);
  auto receiver = parse_nft_counters(fixture("nft-list-table-receiver.json"));
  EXPECT_EQ(receiver["to-server arrived"].packets, 21002u);
  EXPECT_EQ(receiver["to-server drop"].packets, 1090u);
  EXPECT_EQ(receiver.size(), 2u);  // rules without a comment are not ours
}

TEST(NftCounters, BadJsonThrows) {
  EXPECT_THROW(parse_nft_counters("table netdev rpclab {"), std::runtime_error);
  EXPECT_TRUE(parse_nft_counters("{\"nftables\": []}").empty());
}

TEST(TcCounters, NetemQdiscStats) {
  QdiscStats s = parse_netem_stats(fixture("tc-s-j-qdisc-netem.json"));
  EXPECT_TRUE(s.found);
  EXPECT_EQ(s.packets, 4750u);
  EXPECT_EQ(s.bytes, 351468u);
  EXPECT_EQ(s.drops, 489u);
  EXPECT_EQ(s.qlen, 0u);
  // The text form of the same qdisc says the same numbers.
  std::string text = fixture("tc-s-qdisc-netem.txt");
  EXPECT_NE(text.find("Sent 351468 bytes 4750 pkt (dropped 489"), std::string::npos);
}

TEST(TcCounters, NoNetemQdisc) {
  QdiscStats s = parse_netem_stats(R"([{"kind":"noqueue","handle":"0:","root":true,"packets":3,"drops":0}])");
  EXPECT_FALSE(s.found);
  EXPECT_EQ(s.packets, 0u);
}

TEST(InterfaceCounters, IpLinkStats64) {
  InterfaceStats s = parse_interface_stats(fixture("ip-s-j-link-receiver.json"));
  EXPECT_EQ(s.rx_packets, 4750u);
  EXPECT_EQ(s.rx_bytes, 351468u);
  EXPECT_EQ(s.tx_packets, 1u);
  EXPECT_THROW(parse_interface_stats("[{\"ifname\":\"lo\"}]"), std::runtime_error);
}

TEST(InterfaceCounters, ProcNetDevSaysWhatIpLinkSays) {
  // Captured in a namespace of a veth pair after three datagrams; `ip -s -j
  // link show dev estv-a` said rx 2328 bytes / 10 packets, tx 3684 / 10.
  std::optional<InterfaceStats> s = parse_net_dev(fixture("proc-net-dev-veth.txt"), "estv-a");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rx_bytes, 2328u);
  EXPECT_EQ(s->rx_packets, 10u);
  EXPECT_EQ(s->tx_bytes, 3684u);
  EXPECT_EQ(s->tx_packets, 10u);
  EXPECT_FALSE(parse_net_dev(fixture("proc-net-dev-veth.txt"), "estv")) << "a prefix of a name is not the name";
  EXPECT_FALSE(parse_net_dev(fixture("proc-net-dev-veth.txt"), "eth0"));
  // The kernel's "%6s:%8llu": nine digits of bytes touch the colon.
  std::optional<InterfaceStats> big =
      parse_net_dev("rpclab-cli:123456789    7 0 0 0 0 0 0 987654321 8 0 0 0 0 0 0\n", "rpclab-cli");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->rx_bytes, 123456789u);
  EXPECT_EQ(big->tx_bytes, 987654321u);
  EXPECT_EQ(big->tx_packets, 8u);
}

TEST(Snmp, ReadsEveryGroup) {
  auto snmp = parse_snmp(fixture("proc-net-snmp-sender.txt"));
  EXPECT_EQ(snmp["Ip.OutRequests"], 5000u);
  EXPECT_EQ(snmp["Ip.DefaultTTL"], 64u);
  EXPECT_TRUE(snmp.count("Udp.RcvbufErrors"));
  EXPECT_TRUE(snmp.count("Udp.OutDatagrams"));
}

// netem has no duplicate counter: the guest fixtures (5,000 offered,
// 489 dropped, 4,750 sent) imply 239 copies; measure() turns the counters
// into percentages of what was offered.
TEST(Measure, PercentagesOverImpairedDirections) {
  LinkCounters before, after;
  after.to_server = {5000, 489, 239, 4750, 351468};
  after.to_client = {1000, 0, 0, 1000, 0};
  MeasuredFaults m = measure(before, after, Direction::kToServer);
  EXPECT_EQ(m.offered, 5000u);
  EXPECT_NEAR(m.loss_pct, 100.0 * 489 / 5239, 1e-9);
  EXPECT_NEAR(m.dup_pct, 100.0 * 239 / 5000, 1e-9);
  MeasuredFaults both = measure(before, after, Direction::kBoth);
  EXPECT_EQ(both.offered, 6000u);
  EXPECT_EQ(measure(before, before, Direction::kBoth).offered, 0u);
}

// A partition's counters: nft on this host, tc gact inside the guest.
TEST(LinkEventCounters, PartitionDropsFromNftAndTc) {
  EXPECT_EQ(parse_nft_counters(fixture("nft-list-table-partition.json"))["partition"].packets, 7u);
  EXPECT_EQ(parse_tc_dropped(fixture("tc-s-j-filter-ingress-drop.json")), 1u);
  EXPECT_EQ(parse_tc_dropped("[]"), 0u);
  EXPECT_THROW(parse_tc_dropped("filter protocol all"), std::runtime_error);
}

// The reset chain of the netem backend (the guest's): what iptables-legacy
// -L -v -x -n printed (captured), its rules' packets summed.
TEST(LinkEventCounters, ResetsFromTheIptablesChain) {
  const std::string listed =
      "Chain rpclab-reset (1 references)\n"
      "    pkts      bytes target     prot opt in     out     source               destination         \n"
      "       3      156 REJECT     6    --  veth-s  *       0.0.0.0/0            0.0.0.0/0            tcp "
      "flags:!0x04/0x04 reject-with tcp-reset\n";
  EXPECT_EQ(parse_iptables_packets(listed), 3u);
  EXPECT_THROW(parse_iptables_packets("iptables: No chain/target/match by that name.\n"), std::runtime_error);
  // The chain is jumped to first from INPUT, and its rule lets resets pass
  // (a reset answered with a reset would never reach its socket).
  auto argvs = iptables_reset_argvs("veth-s");
  ASSERT_EQ(argvs.size(), 3u);
  EXPECT_EQ(argvs[1][0], "iptables-legacy");
  EXPECT_NE(std::find(argvs[1].begin(), argvs[1].end(), "!"), argvs[1].end());
  EXPECT_EQ(argvs[2], (std::vector<std::string>{"iptables-legacy", "-w", "-I", "INPUT", "1", "-j", kResetChain}));
}

// Between two readings of a netem direction: what left the qdisc (or waits
// in it) beyond what came in and was not dropped are the copies netem made.
TEST(NetemCounters, CopiesAreWhatLeftBeyondWhatCameInAndWasNotDropped) {
  NetemReading before, now;
  before.qdisc = {true, 100, 10000, 2, 0};
  before.offered = 100;
  before.delivered_packets = 98;
  now.qdisc = {true, 1200, 120000, 52, 3};  // 1,100 sent, 50 dropped, 3 still delayed
  now.offered = 1100;
  now.delivered_packets = 1145;
  now.delivered_bytes = 5000;
  DirectionCounters d = netem_direction_counters(before, now);
  EXPECT_EQ(d.offered, 1000u);
  EXPECT_EQ(d.dropped, 50u);
  EXPECT_EQ(d.duplicated, 153u);  // 1,100 + 3 + 50 - 1,000
  EXPECT_EQ(d.delivered, 1047u);
  EXPECT_EQ(d.bytes_delivered, 5000u);
  now.qdisc.found = false;  // no netem qdisc there (the direction is not impaired)
  EXPECT_EQ(netem_direction_counters(before, now).duplicated, 0u);
}

}  // namespace
}  // namespace rpclab::netem
