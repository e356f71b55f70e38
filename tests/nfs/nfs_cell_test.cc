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

#include <csignal>

#include <gtest/gtest.h>

#include "harness/nfs/client_pcap.h"
#include "harness/nfs/ganesha_server.h"
#include "harness/nfs/nfs_cell.h"
#include "netem/topology/topology.h"
#include "support/process.h"
#include "support/wait.h"

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
  NfsTrial r = run_nfs_cell(o);
  ASSERT_TRUE(r.classes && r.told && r.counts && r.faults);
  EXPECT_EQ(r.classes->calls, 30u);
  EXPECT_EQ(r.classes->correct, 10u);
  EXPECT_EQ(r.classes->not_judged, 20u);
  EXPECT_EQ(r.told->at("NFS3_OK"), 30u);
  EXPECT_EQ(r.server_end, "running");
  EXPECT_EQ(r.faults->backend, "none");
  ASSERT_EQ(r.counts->clients.size(), 1u);
  EXPECT_EQ(r.counts->clients[0].calls, 10u);  // the judged ones
  EXPECT_EQ(r.counts->clients[0].silent, 0u);
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
  NfsTrial r = run_nfs_cell(o);
  ASSERT_TRUE(r.classes);
  EXPECT_EQ(r.classes->correct, 5u);
  nlohmann::json cell = nlohmann::json::parse(std::ifstream(o.out_dir + "/cell.json"));
  std::string summary = cell["pcap"]["tcpdump"];
  EXPECT_NE(summary.find("packets captured"), std::string::npos) << summary;
  int packets = pcap_packets(o.out_dir + "/client.pcap");
  // At least the 5 MKDIRs and their replies; and only this cell's traffic
  // (the namespace carries nothing else: rpcbind, MOUNT over TCP, the
  // readiness probes and the calls come to a few dozen packets).
  EXPECT_GE(packets, 10);
  EXPECT_LE(packets, 150) << "the capture holds more than this cell's traffic";
  std::filesystem::remove_all(o.out_dir);
}

// A SIGTERM in the middle of a cell (rpclab-nfs-cell run by hand, a
// script's timeout) used to kill the program where it stood: its
// namespaces, ganesha and rpcbind stayed. Now the cell runs to its end,
// removes them, and the program exits 128+15 saying so.
TEST(NfsCellProgram, SigtermMidCellLeavesNothingBehind) {
  if (auto why = why_not(); !why.empty()) GTEST_SKIP() << why;
  std::string out = ::testing::TempDir() + "rpclab-nfs-cell-sigterm-" + std::to_string(::getpid());
  std::filesystem::remove_all(out);
  test::Child cell({test::bin("rpclab-nfs-cell"), "--transport", "tcp", "--count", "400", "--out", out},
                   out + ".log");
  std::string ours = "rpclab-" + std::to_string(cell.pid()) + "-";
  auto mkdirs_made = [&] {
    std::error_code ec;
    return std::filesystem::exists(out + "/server/export", ec) &&
           !std::filesystem::is_empty(out + "/server/export", ec);
  };
  ASSERT_TRUE(test::wait_until(mkdirs_made, std::chrono::seconds(60)))
      << "the cell made no directory in 60 s; its log: " << out << ".log";
  ASSERT_FALSE(cell.exit_code()) << "the cell ended before the signal: make --count larger";
  int code = cell.stop(SIGTERM, std::chrono::seconds(120));
  std::ifstream log(out + ".log");
  std::string said((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(code, 128 + SIGTERM) << said;
  EXPECT_NE(said.find("stopped by signal 15"), std::string::npos) << said;
  for (const auto& ns : netem::list_our_namespaces()) EXPECT_EQ(ns.find(ours), std::string::npos) << ns << " left behind";
  std::filesystem::remove_all(out);
  std::filesystem::remove(out + ".log");
}

}  // namespace
}  // namespace rpclab::harness::nfs
