// One small NFS cell end to end as root: nfs-ganesha in a namespace with
// its own rpcbind, rpclab-nfs-client over UDP and TCP, no fault: every
// MKDIR is correct, the export holds exactly the names, nothing is left.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace rpclab::harness::nfs
