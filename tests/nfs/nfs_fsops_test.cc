// rpclab-nfs-fsops on a local directory (no root, no NFS): the system
// calls' answers in the call record's words, and the classes judging its
// record unchanged. The kernel client's runs over NFS are in
// kernel_client_test.cc.
#include <cerrno>
#include <filesystem>

#include <gtest/gtest.h>

#include "harness/nfs/nfs_classes.h"
#include "nfs/nfs_call_record.h"
#include "nfs/nfs_fs_ops.h"
#include "nfs/nfs_workload.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::harness::nfs {
namespace {

using rpclab::nfs::answer_of_errno;

TEST(NfsFsops, ErrnoIsToldInNfsWords) {
  EXPECT_EQ(answer_of_errno(0).nfs, "NFS3_OK");
  EXPECT_EQ(answer_of_errno(EEXIST).nfs, "NFS3ERR_EXIST");
  EXPECT_EQ(answer_of_errno(ENOENT).nfs, "NFS3ERR_NOENT");
  EXPECT_EQ(answer_of_errno(ENOTEMPTY).nfs, "NFS3ERR_NOTEMPTY");
  EXPECT_EQ(answer_of_errno(EBUSY).nfs, "errno:EBUSY");
  // No reply implied: a soft mount's EIO, a major timeout.
  auto eio = answer_of_errno(EIO), etimedout = answer_of_errno(ETIMEDOUT);
  EXPECT_EQ(eio.rpc, "error");
  EXPECT_FALSE(eio.nfs.has_value());
  EXPECT_EQ(etimedout.rpc, "timeout");
  EXPECT_FALSE(etimedout.nfs.has_value());
}

TEST(NfsFsops, ItsRecordIsJudgedAsRpclabNfsClientsIs) {
  test::TempDir dir;
  std::string export_dir = dir.file("export");
  std::filesystem::create_directories(export_dir + "/c1-s2");  // as if an earlier execution had made it
  test::ProcessResult r = test::run_program({test::bin("rpclab-nfs-fsops"), "--dir", export_dir, "--count", "3",
                                             "--ops", "mkdir", "--mount-options", "vers=3", "--record",
                                             dir.file("c1.jsonl")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto record = rpclab::nfs::NfsCallRecord::read_file(dir.file("c1.jsonl"));
  EXPECT_EQ(record.header["mount_options"], "vers=3");
  ASSERT_EQ(record.calls.size(), 3u);
  EXPECT_EQ(record.calls[1].nfs, "NFS3ERR_EXIST");
  NfsClassCounts c = classify(record, list_export(export_dir)).all;
  EXPECT_EQ(c.correct, 2u);
  EXPECT_EQ(c.replayed_told_failure, 1u);
}

TEST(NfsFsops, EveryOperationRunsWithItsSystemCall) {
  test::TempDir dir;
  test::ProcessResult r = test::run_program({test::bin("rpclab-nfs-fsops"), "--dir", dir.path(), "--count", "2",
                                             "--ops", "mkdir,rmdir,create-exclusive,write,link,rename,create-exclusive,remove",
                                             "--record", dir.file("c1.jsonl")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto record = rpclab::nfs::NfsCallRecord::read_file(dir.file("c1.jsonl"));
  ASSERT_EQ(record.calls.size(), 16u);
  for (const auto& c : record.calls) EXPECT_EQ(c.nfs, "NFS3_OK") << rpclab::nfs::op_name(c.op) << " " << c.name;
  EXPECT_EQ(record.header["wire"]["create-exclusive"], rpclab::nfs::syscall_words(rpclab::nfs::NfsOp::kCreateExclusive));
  // The renamed file and its link are left with WRITE's bytes (and 2
  // links); the second file made under the step's name was removed.
  NfsExportListing end = list_export(dir.path());
  ASSERT_TRUE(end.count("c1-s1.renamed") && end.count("c1-s1.link")) << r.err;
  EXPECT_EQ(end.at("c1-s1.renamed").size, rpclab::nfs::kWriteOffset + rpclab::nfs::kWriteBytes);
  EXPECT_EQ(end.at("c1-s1.link").links, 2u);
  EXPECT_FALSE(end.count("c1-s1"));
}

TEST(NfsFsops, ASecondRenameOrLinkIsToldWhatAReplayIsTold) {
  test::TempDir dir;
  test::ProcessResult r = test::run_program({test::bin("rpclab-nfs-fsops"), "--dir", dir.path(), "--count", "1",
                                             "--ops", "create-exclusive,link,link,rename,rename", "--record",
                                             dir.file("c1.jsonl")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto record = rpclab::nfs::NfsCallRecord::read_file(dir.file("c1.jsonl"));
  ASSERT_EQ(record.calls.size(), 5u);
  EXPECT_EQ(record.calls[2].nfs, rpclab::nfs::replay_status(rpclab::nfs::NfsOp::kLink));
  EXPECT_EQ(record.calls[4].nfs, rpclab::nfs::replay_status(rpclab::nfs::NfsOp::kRename));
}

TEST(NfsFsops, CreateGuardedAndAnUnknownOperationAreRefusedWithTheirReason) {
  test::TempDir dir;
  test::ProcessResult guarded = test::run_program({test::bin("rpclab-nfs-fsops"), "--dir", dir.path(), "--ops",
                                                   "create-guarded", "--record", dir.file("c1.jsonl")});
  EXPECT_EQ(guarded.exit_code, 2);
  EXPECT_NE(guarded.err.find("CREATE EXCLUSIVE"), std::string::npos) << guarded.err;
  test::ProcessResult unknown = test::run_program({test::bin("rpclab-nfs-fsops"), "--dir", dir.path(), "--ops",
                                                   "mkdir,symlink", "--record", dir.file("c2.jsonl")});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find(rpclab::nfs::known_ops_text()), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace rpclab::harness::nfs
