// The classes of harness/nfs/nfs_classes.h from a record and an end state,
// and the operation rows of src/nfs/nfs_workload.h they read.
#include <gtest/gtest.h>

#include <initializer_list>
#include <set>
#include <stdexcept>

#include "harness/nfs/nfs_classes.h"
#include "nfs/nfs_workload.h"

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

// Names in the export, each an empty file unless sized.
NfsExportListing there(std::initializer_list<std::string> names) {
  NfsExportListing l;
  for (const auto& n : names) l[n] = NfsExportEntry{};
  return l;
}

constexpr uint64_t kWritten = rpclab::nfs::kWriteOffset + rpclab::nfs::kWriteBytes;

TEST(NfsClasses, MkdirToldExistForADirectoryThatIsThereIsAReplayToldFailure) {
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kMkdir, "NFS3_OK"), call(2, NfsOp::kMkdir, "NFS3ERR_EXIST"),
             call(3, NfsOp::kMkdir, "NFS3_OK"), call(4, NfsOp::kMkdir, std::nullopt, "timeout"),
             call(5, NfsOp::kMkdir, std::nullopt, "timeout"), call(6, NfsOp::kMkdir, "NFS3ERR_IO")};
  NfsClassCounts c = classify(r, there({"c1-s1", "c1-s2", "c1-s4"})).all;
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
  NfsClassCounts c = classify(r, {}).all;
  EXPECT_EQ(c.replayed_told_failure, 1u);  // s1's RMDIR: told NOENT, and the directory is gone
  EXPECT_EQ(c.not_judged, 3u);             // both MKDIRs (their RMDIR undoes them) and s2's RMDIR
}

TEST(NfsClasses, ALaterCallThatFailedLeavesTheStepsLastCallUnjudged) {
  // "mkdir,rmdir,mkdir" with the RMDIR failed: the second MKDIR's EXIST is
  // the first MKDIR's directory, not a replay.
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kMkdir, "NFS3_OK"), call(1, NfsOp::kRmdir, "NFS3ERR_IO"),
             call(1, NfsOp::kMkdir, "NFS3ERR_EXIST")};
  RecordClasses c = classify(r, there({"c1-s1"}));
  EXPECT_EQ(c.all.not_judged, 3u);
  EXPECT_EQ(c.all.replayed_told_failure, 0u);
}

TEST(NfsClasses, RenameToldNoentWithItsSourceGoneAndTargetThereIsAReplay) {
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kCreateGuarded, "NFS3_OK"), call(1, NfsOp::kRename, "NFS3ERR_NOENT"),
             call(2, NfsOp::kCreateGuarded, "NFS3_OK"), call(2, NfsOp::kRename, "NFS3_OK"),
             call(3, NfsOp::kCreateGuarded, "NFS3_OK"), call(3, NfsOp::kRename, "NFS3_OK")};
  // s3's rename told OK but its source is still there: lost.
  RecordClasses c = classify(r, there({"c1-s1.renamed", "c1-s2.renamed", "c1-s3"}));
  EXPECT_EQ(c.by_op.at("rename").replayed_told_failure, 1u);
  EXPECT_EQ(c.by_op.at("rename").correct, 1u);
  EXPECT_EQ(c.by_op.at("rename").lost, 1u);
  EXPECT_EQ(c.by_op.at("create-guarded").not_judged, 3u);  // the RENAME moves their name
  EXPECT_EQ(c.all.calls, 6u);
}

TEST(NfsClasses, LinkToldExistWithTheLinkThereIsAReplayAndKeepsItsCreateJudged) {
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kCreateGuarded, "NFS3_OK"), call(1, NfsOp::kLink, "NFS3ERR_EXIST"),
             call(2, NfsOp::kCreateGuarded, "NFS3_OK"), call(2, NfsOp::kLink, "NFS3ERR_EXIST")};
  RecordClasses c = classify(r, there({"c1-s1", "c1-s1.link", "c1-s2"}));
  EXPECT_EQ(c.by_op.at("link").replayed_told_failure, 1u);
  EXPECT_EQ(c.by_op.at("link").clean_failure, 1u);    // s2: no link there
  EXPECT_EQ(c.by_op.at("create-guarded").correct, 2u);  // LINK leaves the name where it was
}

TEST(NfsClasses, LinkAndRenameInOneStepAreBothJudged) {
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kCreateGuarded, "NFS3_OK"), call(1, NfsOp::kLink, "NFS3_OK"),
             call(1, NfsOp::kRename, "NFS3ERR_NOENT")};
  RecordClasses c = classify(r, there({"c1-s1.link", "c1-s1.renamed"}));
  EXPECT_EQ(c.by_op.at("create-guarded").not_judged, 1u);
  EXPECT_EQ(c.by_op.at("link").correct, 1u);
  EXPECT_EQ(c.by_op.at("rename").replayed_told_failure, 1u);
}

// A late copy of the step's CREATE, run after its RENAME (ganesha with its
// cache off under duplication, 2026-11-28): the name is there again beside
// <step>.renamed. The RENAME ran (.renamed is there): correct, not lost;
// the CREATE, told NFS3_OK, ran twice: replayed, told success. Without the
// .renamed file the RENAME is lost and the CREATE is not judged.
TEST(NfsClasses, ACreateRunAgainAfterItsStepsRenameIsReplayedToldSuccess) {
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kCreateGuarded, "NFS3_OK"), call(1, NfsOp::kLink, "NFS3_OK"),
             call(1, NfsOp::kRename, "NFS3_OK"),        call(2, NfsOp::kCreateGuarded, "NFS3_OK"),
             call(2, NfsOp::kLink, "NFS3_OK"),          call(2, NfsOp::kRename, "NFS3_OK")};
  RecordClasses c = classify(r, there({"c1-s1", "c1-s1.link", "c1-s1.renamed", "c1-s2", "c1-s2.link"}));
  EXPECT_EQ(c.by_op.at("rename").correct, 1u) << "s1: .renamed is there";
  EXPECT_EQ(c.by_op.at("rename").lost, 1u) << "s2: told OK, no .renamed";
  EXPECT_EQ(c.by_op.at("create-guarded").replayed_told_success, 1u) << "s1: its name made again after the RENAME";
  EXPECT_EQ(c.by_op.at("create-guarded").not_judged, 1u) << "s2: the RENAME did not run, nothing says the CREATE ran twice";
  EXPECT_EQ(c.all.silent(), 2u);
  EXPECT_EQ(client_counts(1, c.all).duplicate_calls, 1u);
}

TEST(NfsClasses, WriteIsJudgedByTheFilesSizeAndIsNeverAReplay) {
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kCreateExclusive, "NFS3_OK"), call(1, NfsOp::kWrite, "NFS3_OK"),
             call(2, NfsOp::kCreateExclusive, "NFS3_OK"), call(2, NfsOp::kWrite, "NFS3_OK"),
             call(3, NfsOp::kCreateExclusive, "NFS3_OK"), call(3, NfsOp::kWrite, "NFS3ERR_EXIST"),
             call(4, NfsOp::kCreateExclusive, "NFS3ERR_IO"), call(4, NfsOp::kWrite, "NFS3_OK")};
  NfsExportListing end = there({"c1-s2", "c1-s4"});
  end["c1-s1"].size = kWritten;
  end["c1-s3"].size = kWritten;
  RecordClasses c = classify(r, end);
  const NfsClassCounts& w = c.by_op.at("write");
  EXPECT_EQ(w.correct, 1u);        // s1
  EXPECT_EQ(w.lost, 1u);           // s2: told OK, the file empty
  EXPECT_EQ(w.indeterminate, 1u);  // s3: no status is a WRITE's replay
  EXPECT_EQ(w.replayed_told_failure, 0u);
  EXPECT_EQ(w.not_judged, 1u);     // s4: its CREATE failed
  EXPECT_EQ(c.by_op.at("create-exclusive").correct, 3u);  // WRITE keeps the name there
  EXPECT_EQ(c.by_op.at("create-exclusive").indeterminate, 1u);
}

TEST(NfsClasses, CreateExclusiveToldExistForItsOwnFileIsAReplay) {
  // RFC 1813 has the server answer NFS3_OK; one that does not keep the
  // verifier would say EXIST, and the classes would show it.
  NfsCallRecord r;
  r.calls = {call(1, NfsOp::kCreateExclusive, "NFS3ERR_EXIST")};
  EXPECT_EQ(classify(r, there({"c1-s1"})).all.replayed_told_failure, 1u);
}

TEST(NfsOps, EveryRowHasANameThatParsesBackAndAProcedure) {
  std::set<std::string> names;
  for (NfsOp op : rpclab::nfs::all_ops()) {
    std::string name = rpclab::nfs::op_name(op);
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_EQ(rpclab::nfs::parse_op(name), op);
    EXPECT_FALSE(rpclab::nfs::procedure(op).empty()) << name;
    EXPECT_FALSE(rpclab::nfs::wire_words(op).empty()) << name;
    if (op != NfsOp::kGetattr) {  // the export root's attributes: nothing the end state shows
      EXPECT_FALSE(rpclab::nfs::effects(op, "c1-s1").empty()) << name;
    }
    EXPECT_NE(rpclab::nfs::known_ops_text().find(name), std::string::npos);
  }
  EXPECT_EQ(names.size(), 9u);
}

TEST(NfsOps, TheNewRowsSayTheirEffectsAndReplays) {
  using rpclab::nfs::Presence;
  auto rename = rpclab::nfs::effects(NfsOp::kRename, "c1-s3");
  ASSERT_EQ(rename.size(), 2u);
  EXPECT_EQ(rename[0].name, "c1-s3");
  EXPECT_EQ(rename[0].presence, Presence::kGone);
  EXPECT_EQ(rename[1].name, "c1-s3.renamed");
  EXPECT_EQ(rpclab::nfs::second_name(NfsOp::kRename, "c1-s3"), "c1-s3.renamed");
  EXPECT_EQ(rpclab::nfs::replay_status(NfsOp::kRename), "NFS3ERR_NOENT");
  EXPECT_EQ(rpclab::nfs::second_name(NfsOp::kLink, "c1-s3"), "c1-s3.link");
  EXPECT_EQ(rpclab::nfs::replay_status(NfsOp::kLink), "NFS3ERR_EXIST");
  EXPECT_EQ(rpclab::nfs::replay_status(NfsOp::kCreateExclusive), "NFS3ERR_EXIST");
  EXPECT_FALSE(rpclab::nfs::replay_status(NfsOp::kWrite).has_value());
  EXPECT_EQ(rpclab::nfs::effects(NfsOp::kWrite, "c1-s3")[0].presence, Presence::kWritten);
  EXPECT_TRUE(rpclab::nfs::needs_step_name(NfsOp::kWrite));
  EXPECT_FALSE(rpclab::nfs::needs_step_name(NfsOp::kCreateExclusive));
  EXPECT_EQ(rpclab::nfs::procedure(NfsOp::kCreateExclusive), "CREATE");
  EXPECT_EQ(rpclab::nfs::write_bytes().size(), rpclab::nfs::kWriteBytes);
  // Linux's NFSv3 client has no system call that sends CREATE GUARDED.
  EXPECT_TRUE(rpclab::nfs::syscall_words(NfsOp::kCreateGuarded).empty());
  EXPECT_NE(rpclab::nfs::syscall_words(NfsOp::kCreateExclusive).find("EXCLUSIVE"), std::string::npos);
}

TEST(NfsOps, TheExclusiveVerifierIsTheClientAndTheStep) {
  auto v = rpclab::nfs::exclusive_verifier(0x01020304, 7);
  EXPECT_EQ(v, (std::vector<char>{1, 2, 3, 4, 0, 0, 0, 7}));
  EXPECT_NE(rpclab::nfs::exclusive_verifier(1, 2), rpclab::nfs::exclusive_verifier(2, 1));
  EXPECT_EQ(rpclab::nfs::parse_step_name("c12-s345"), std::make_pair(12u, 345u));
  EXPECT_FALSE(rpclab::nfs::parse_step_name("c1-s3.link").has_value());
  EXPECT_FALSE(rpclab::nfs::parse_step_name("x1-s3").has_value());
  EXPECT_FALSE(rpclab::nfs::parse_step_name("c-s3").has_value());
}

TEST(NfsOps, AnUnknownOperationIsRefusedWithTheKnownOnesFromTheTable) {
  try {
    rpclab::nfs::parse_ops("mkdir,symlink");
    FAIL() << "symlink parsed";
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("'symlink'"), std::string::npos) << what;
    EXPECT_NE(what.find(rpclab::nfs::known_ops_text()), std::string::npos) << what;
  }
  EXPECT_EQ(rpclab::nfs::ops_text(rpclab::nfs::parse_ops("create-guarded,link,rename")),
            "create-guarded,link,rename");
}

}  // namespace
}  // namespace rpclab::harness::nfs
