// The reset column end to end as root (issue 23): libnfs against
// nfs-ganesha over NFSv3/TCP while the connection is reset once, 300 ms
// in as in the preset (after libnfs's mount): ss -K at both ends, then
// every TCP segment either way answered with a reset for 100 ms
// (netem/events/link_events.h). The reset happened (its occurrence in the
// record, with a socket closed or a segment answered), the trial is a
// measurement (no events_not_met), every MKDIR was told something and the
// classes add up. libnfs makes a MKDIR in about 0.1 ms: 3,000 steps were
// once enough to be still running when the rule went in (nft took 50 to
// 660 ms on this machine), until a local CI run finished all 3,000 in
// 348 ms, 47 ms after the reset began, and the reset struck no connection
// (2026-11-28). 12,000 steps: about 1.3 s unloaded, so the client is
// still calling when the rule is in however fast nft is.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "harness/nfs/ganesha_server.h"
#include "harness/nfs/nfs_cell.h"
#include "harness/nfs/nfs_client.h"
#include "netem/config/fault_events.h"
#include "nfs_reset_checks.h"

namespace rpclab::harness::nfs {
namespace {

std::string why_not() {
  if (::geteuid() != 0) return "needs root (namespaces, nftables, ganesha)";
  if (std::string why = ganesha_missing(); !why.empty()) return why;
  return nfs_client("libnfs").missing();
}

// libnfs on ganesha over TCP, `count` MKDIRs, the one reset `event`.
NfsCellOptions libnfs_cell(const std::string& name, uint32_t count, const std::string& event) {
  NfsCellOptions o;
  o.client = "libnfs";
  o.transport = "tcp";
  o.count = count;
  o.timeout_ms = 1000;
  o.faults.events.push_back(netem::parse_event(event));
  o.client_program = RPCLAB_BIN_DIR "/rpclab-nfs-libnfs";
  o.out_dir = (std::filesystem::path(::testing::TempDir()) / name).string();  // no "//": ganesha.conf
  std::filesystem::remove_all(o.out_dir);  // a fresh export: an earlier run's names would answer EXIST
  return o;
}

TEST(NfsReset, LibnfsOnGaneshaIsResetWithEvidenceAndTheClassesAddUp) {
  constexpr uint32_t kSteps = 12000;
  if (std::string why = why_not(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o = libnfs_cell("nfs-reset-cell", kSteps, "reset at=300ms for=100ms");
  o.drc = false;
  NfsTrial r = run_nfs_cell(o);

  // The reset happened, with its evidence.
  expect_one_reset_that_struck(r, "nft");

  // Every MKDIR was told something, and the classes add up.
  ASSERT_TRUE(r.classes);
  const NfsClassCounts& c = *r.classes;
  expect_classes_add_up(c, kSteps);
  uint64_t told = 0;
  for (const auto& [answer, n] : *r.told) told += n;
  EXPECT_EQ(told, c.calls);
  ASSERT_TRUE(r.client_exits);
  EXPECT_EQ(r.client_exits->at(0), "exited with code 0");
}

// A reset that never happened while the calls ran is no measurement, and
// the trial says so (run_nfs_trial then marks it failed, not counted).
TEST(NfsReset, AResetThatNeverHappenedIsNoMeasurement) {
  if (std::string why = why_not(); !why.empty()) GTEST_SKIP() << why;
  // Planned long after 5 MKDIRs are done: it never starts.
  NfsTrial r = run_nfs_cell(libnfs_cell("nfs-reset-none", 5, "reset at=60s for=100ms"));
  ASSERT_TRUE(r.events_not_met);
  EXPECT_NE(r.events_not_met->find("not a measurement"), std::string::npos) << *r.events_not_met;
  EXPECT_NE(r.events_not_met->find("reset (planned at 60000 ms)"), std::string::npos) << *r.events_not_met;
}

}  // namespace
}  // namespace rpclab::harness::nfs
