// One small NFS cell end to end as root: nfs-ganesha in a namespace with
// its own rpcbind, rpclab-nfs-client over UDP and TCP, no fault: every
// MKDIR is correct, the export holds exactly the names, nothing is left.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <gtest/gtest.h>

#include "harness/nfs/client_pcap.h"
#include "harness/nfs/ganesha_server.h"
#include "harness/nfs/nfs_cell.h"
#include "netem/topology/topology.h"

namespace rpclab::harness::nfs {
namespace {

std::string why_not() {
  if (::geteuid() != 0) return "needs root (namespaces, nftables, ganesha)";
  return ganesha_missing();
}

class NfsCell : public ::testing::TestWithParam<const char*> {};

TEST_P(NfsCell, EveryMkdirIsCorrectWithoutAFault) {
  if (auto why = why_not(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o;
  o.transport = GetParam();
  o.count = 10;
  o.ops = "mkdir,rmdir,mkdir";
  o.client_program = RPCLAB_BIN_DIR "/rpclab-nfs-client";
  o.out_dir = ::testing::TempDir() + "rpclab-nfs-cell-" + o.transport + "-" + std::to_string(::getpid());
  nlohmann::json r = run_nfs_cell(o);  // not a record: the cell's own result
  EXPECT_EQ(r["classes"]["calls"], 30);
  EXPECT_EQ(r["classes"]["correct"], 10);
  EXPECT_EQ(r["classes"]["not_judged"], 20);
  EXPECT_EQ(r["told"]["NFS3_OK"], 30);
  EXPECT_EQ(r["server_end"], "running");
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(o.out_dir + "/server/export")) {
    EXPECT_TRUE(e.is_directory()) << e.path();
    ++entries;
  }
  EXPECT_EQ(entries, 10u);
  for (const auto& ns : netem::list_our_namespaces())
    EXPECT_EQ(ns.find("rpclab-" + std::to_string(::getpid()) + "-"), std::string::npos) << ns << " left behind";
  std::filesystem::remove_all(o.out_dir);
}

INSTANTIATE_TEST_SUITE_P(Transports, NfsCell, ::testing::Values("udp", "tcp"));

// Packets in a classic pcap file (24-byte file header, then a 16-byte
// header per packet whose third word is the captured length), or -1 when
// it is not one.
int pcap_packets(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<unsigned char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint32_t magic = 0;
  if (b.size() < 24) return -1;
  std::memcpy(&magic, b.data(), 4);
  if (magic != 0xa1b2c3d4u) return -1;  // tcpdump writes host order, microseconds
  int packets = 0;
  for (size_t at = 24; at + 16 <= b.size(); ++packets) {
    uint32_t caplen = 0;
    std::memcpy(&caplen, b.data() + at + 8, 4);
    at += 16 + caplen;
    if (at > b.size()) return -1;
  }
  return packets;
}

TEST(NfsCellPcap, CapturesEveryRequestAndReplyOfTheClient) {
  if (auto why = why_not(); !why.empty()) GTEST_SKIP() << why;
  if (auto why = tcpdump_missing(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o;
  o.count = 5;
  o.pcap = true;
  o.client_program = RPCLAB_BIN_DIR "/rpclab-nfs-client";
  o.out_dir = ::testing::TempDir() + "rpclab-nfs-cell-pcap-" + std::to_string(::getpid());
  nlohmann::json r = run_nfs_cell(o);
  EXPECT_EQ(r["classes"]["correct"], 5);
  std::string summary = r["pcap"]["tcpdump"];
  EXPECT_NE(summary.find("packets captured"), std::string::npos) << summary;
  int packets = pcap_packets(o.out_dir + "/client.pcap");
  // At least the 5 MKDIRs and their replies, and no more than the link
  // carried both ways (the nftables counters also count rpcbind, MOUNT,
  // the readiness probes).
  EXPECT_GE(packets, 10);
  EXPECT_LE(packets, r["link"]["to_server"]["offered"].get<int>() + r["link"]["to_client"]["offered"].get<int>() + 20)
      << "ARP and ICMP aside, the capture holds what the link carried";
  std::filesystem::remove_all(o.out_dir);
}

}  // namespace
}  // namespace rpclab::harness::nfs
