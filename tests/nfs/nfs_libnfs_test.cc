// The libnfs client row end to end as root (issue 23): rpclab-nfs-libnfs
// against nfs-ganesha, NFSv3 over TCP, no fault: every MKDIR correct, the
// classes add up, the header names the libnfs loaded and its settings.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "harness/nfs/ganesha_server.h"
#include "harness/nfs/nfs_cell.h"
#include "nfs/nfs_call_record.h"

namespace rpclab::harness::nfs {
namespace {

TEST(NfsLibnfs, EveryMkdirIsCorrectWithoutAFault) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (namespaces, nftables, ganesha)";
  if (std::string why = ganesha_missing(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o;
  o.client = "libnfs";
  o.transport = "tcp";
  o.count = 30;
  o.timeout_ms = 3000;
  o.client_program = RPCLAB_BIN_DIR "/rpclab-nfs-libnfs";
  o.out_dir = (std::filesystem::path(::testing::TempDir()) / "nfs-libnfs-cell").string();  // no "//": ganesha.conf
  std::filesystem::remove_all(o.out_dir);  // a fresh export: an earlier run's names would answer EXIST
  NfsTrial r = run_nfs_cell(o);
  ASSERT_TRUE(r.classes);
  const NfsClassCounts& c = *r.classes;
  EXPECT_EQ(c.calls, 30u);
  EXPECT_EQ(c.correct, 30u) << nlohmann::json(c).dump();
  EXPECT_EQ(c.correct + c.replayed_told_failure + c.lost + c.indeterminate + c.clean_failure + c.not_judged, c.calls);
  ASSERT_TRUE(r.client_exits);
  EXPECT_EQ(r.client_exits->at(0), "exited with code 0");
  rpclab::nfs::NfsCallRecord record = rpclab::nfs::NfsCallRecord::read_file(o.out_dir + "/client-1.jsonl");
  const nlohmann::json& libnfs = record.header.at("libnfs");  // not a harness record: the client's own header
  EXPECT_EQ(libnfs.at("timeout_ms"), 3000);
  EXPECT_EQ(libnfs.at("autoreconnect"), -1);
  EXPECT_FALSE(libnfs.at("library").get<std::string>().empty());
}

}  // namespace
}  // namespace rpclab::harness::nfs
