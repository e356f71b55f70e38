// The classes of harness/nfs/nfs_classes.h from a record and an end state.
#include <gtest/gtest.h>

#include "harness/nfs/nfs_classes.h"

namespace rpclab::harness::nfs {
namespace {

using rpclab::nfs::NfsCall;
using rpclab::nfs::NfsCallRecord;
using rpclab::nfs::NfsOp;

NfsCall call(uint32_t seq, NfsOp op, std::optional<std::string> nfs, std::string rpc = "ok") {
  NfsCall c;
  c.seq = seq;
  c.op = op;
  c.name = rpclab::nfs::step_name(1, seq);
  c.nfs = std::move(nfs);
  c.rpc = std::move(rpc);
  return c;
}

TEST(NfsClasses, MkdirToldExistForADirectoryThatIsThereIsAReplayToldFailure) {
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kMkdir, "NFS3_OK"), call(2, NfsOp::kMkdir, "NFS3ERR_EXIST"),
             call(3, NfsOp::kMkdir, "NFS3_OK"), call(4, NfsOp::kMkdir, std::nullopt, "timeout"),
             call(5, NfsOp::kMkdir, std::nullopt, "timeout"), call(6, NfsOp::kMkdir, "NFS3ERR_IO")};
  NfsClassCounts c = classify(r, {"c1-s1", "c1-s2", "c1-s4"});
  EXPECT_EQ(c.calls, 6u);
  EXPECT_EQ(c.correct, 1u);
  EXPECT_EQ(c.replayed_told_failure, 1u);
  EXPECT_EQ(c.lost, 1u);           // s3: told OK, not there
  EXPECT_EQ(c.indeterminate, 1u);  // s4: timed out, but it ran
  EXPECT_EQ(c.clean_failure, 2u);  // s5, s6
}

TEST(NfsClasses, RmdirIsJudgedOnlyAfterItsMkdirWasToldOk) {
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kMkdir, "NFS3_OK"), call(1, NfsOp::kRmdir, "NFS3ERR_NOENT"),
             call(2, NfsOp::kMkdir, std::nullopt, "timeout"), call(2, NfsOp::kRmdir, "NFS3ERR_NOENT")};
  NfsClassCounts c = classify(r, {});
  EXPECT_EQ(c.replayed_told_failure, 1u);  // s1's RMDIR: told NOENT, and the directory is gone
  EXPECT_EQ(c.not_judged, 3u);             // both MKDIRs (not a step's last call) and s2's RMDIR
}

}  // namespace
}  // namespace rpclab::harness::nfs
