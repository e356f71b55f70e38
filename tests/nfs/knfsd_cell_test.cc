// The knfsd row end to end as root: `run_nfs_cell` on the host boots a
// user-mode-linux guest that loads nfsd and runs rpclab-nfs-cell there,
// knfsd in the server's namespace, rpclab-nfs-client in the client's, the
// fault by netem in the guest. Without a fault every MKDIR is correct over
// TCP; under reply loss over UDP the client retransmits and knfsd
// answers from its reply cache (hits > 0), so no EEXIST is told; a restart
// (`rpc.nfsd 0`, then start) empties the cache: nfs_restart_test.cc shows
// it mid-workload, with the replay it causes. Each test is one guest,
// 9 to 17 s here.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include <gtest/gtest.h>

#include "common/sanitizer.h"
#include "harness/nfs/knfsd_server.h"
#include "harness/nfs/nfs_cell.h"
#include "netem/netem_test_util.h"
#include "support/wait.h"

namespace rpclab::harness::nfs {
namespace {

std::string why_not() {
  if (::geteuid() != 0) return "needs root (the guest's namespaces, netem, knfsd)";
  if (std::string why = knfsd_missing(); !why.empty()) return why;
#if RPCLAB_ASAN
  return "AddressSanitizer cannot place its shadow memory in a user-mode-linux guest's address space; "
         "the plain build (make test) runs this test";
#endif
  return "";
}

NfsCellOptions options(const std::string& name, const std::string& transport) {
  NfsCellOptions o;
  o.server = "knfsd";
  o.transport = transport;
  o.count = 20;
  o.ops = "mkdir";
  o.client_program = RPCLAB_BIN_DIR "/rpclab-nfs-client";
  o.cell_program = RPCLAB_BIN_DIR "/rpclab-nfs-cell";
  o.guest_timeout_s = 120;
  o.out_dir = ::testing::TempDir() + "rpclab-knfsd-" + name + "-" + transport + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(o.out_dir);
  return o;
}

uint64_t delta(const NfsTrial& r, const std::string& group, const std::string& key) {
  const auto& c = r.server_counters.value();
  return c["after"][group][key].get<uint64_t>() - c["before"][group][key].get<uint64_t>();
}

// The guest's host processes carry the out folder in their command line.
void expect_nothing_left(const std::string& out) {
  for (pid_t pid : netem::testing::uml_processes(out)) ADD_FAILURE() << "linux.uml " << pid << " outlived the cell";
  EXPECT_FALSE(std::filesystem::exists(out + "/guest/uml")) << "UML's runtime folder left behind";
}

class KnfsdCell : public ::testing::TestWithParam<const char*> {};

TEST_P(KnfsdCell, EveryMkdirIsCorrectWithoutAFault) {
  if (auto why = why_not(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o = options("clean", GetParam());
  NfsTrial r = run_nfs_cell(o);  // relayed from the guest
  ASSERT_TRUE(r.classes && r.told);
  EXPECT_EQ(r.server, "knfsd");
  EXPECT_EQ(r.classes->calls, 20u);
  EXPECT_EQ(r.classes->correct, 20u);
  EXPECT_EQ(r.told->at("NFS3_OK"), 20u);
  EXPECT_EQ(r.server_end, "running");
  // knfsd ran each MKDIR once, through its reply cache, and answered none from it.
  EXPECT_EQ(delta(r, "proc3", "MKDIR"), 20u);
  EXPECT_EQ(delta(r, "reply_cache", "cache_misses"), 20u);
  EXPECT_EQ(delta(r, "reply_cache", "cache_hits"), 0u);
  nlohmann::json cell = nlohmann::json::parse(std::ifstream(o.out_dir + "/cell.json"));
  EXPECT_GT(cell["guest"]["boot_ms"].get<double>(), 0);
  expect_nothing_left(o.out_dir);
  std::filesystem::remove_all(o.out_dir);
}

// TCP only: over UDP, KnfsdCellUnderLoss runs the same cell with its fault
// (one guest boot fewer in the suite).
INSTANTIATE_TEST_SUITE_P(Transports, KnfsdCell, ::testing::Values("tcp"));

// Ctrl-C during a guest cell (`rpclab nfs` sets the stop flag) powers the
// guest off at once: rpclab ignored two SIGTERMs while a knfsd cell of
// thousands of steps ran to its end in the guest.
TEST(KnfsdCellStop, TheStopFlagPowersTheGuestOffAtOnce) {
  if (auto why = why_not(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o = options("stop", "tcp");
  o.count = 1000000;  // hours: only the stop flag ends this cell in time
  o.guest_timeout_s = 600;
  std::atomic<bool> stop{false};
  o.stop = &stop;
  auto cell = std::async(std::launch::async, [&o] { return run_nfs_cell(o); });
  // Stopped mid-cell: once the guest has started the client (knfsd's
  // export lives in the guest, out of the host's sight).
  auto client_started = [&o] { return std::filesystem::exists(o.out_dir + "/client-1.err"); };
  ASSERT_TRUE(test::wait_until(client_started, std::chrono::seconds(90)))
      << "the guest started no client in 90 s; " << o.out_dir;
  ASSERT_FALSE(netem::testing::uml_processes(o.out_dir).empty()) << "the guest ended before the stop flag";
  auto asked = std::chrono::steady_clock::now();
  stop = true;
  ASSERT_EQ(cell.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "the cell went on for 30 s after the stop flag";
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  EXPECT_THROW(cell.get(), std::runtime_error) << "a stopped cell has no result";
  EXPECT_LT(took, 10.0);
  expect_nothing_left(o.out_dir);
  std::filesystem::remove_all(o.out_dir);
}

TEST(KnfsdCellUnderLoss, LostRepliesAreAnsweredFromTheReplyCache) {
  if (auto why = why_not(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o = options("loss", "udp");
  o.faults.loss_pct = 30;  // replies lost: the client retransmits the same xid
  o.faults.direction = netem::Direction::kToClient;
  o.retransmit_ms = 200;
  NfsTrial r = run_nfs_cell(o);
  ASSERT_TRUE(r.classes && r.told && r.faults);
  EXPECT_EQ(r.faults->backend, "netem");
  EXPECT_GT(r.faults->measured_loss_pct.value_or(0.0), 0) << "no reply was lost: the fault did not apply";
  // No duplication configured, none measured: the link carries IPv4 only
  // (the guest loads ipv6 before the topology turns it off), so no MLD
  // report or neighbour solicitation passes netem's qdisc uncounted as
  // offered (issue 42: such cells read "dup 0.6-1.1%"; without the module
  // loaded first, a kernel-client loss cell of 100 MKDIRs read 0.59% with
  // 16 ICMPv6 frames in server.pcap, 2026-12-06).
  EXPECT_EQ(r.faults->measured_dup_pct.value_or(-1.0), 0.0) << r.faults->counters_after->dump();
  EXPECT_GT(delta(r, "reply_cache", "cache_hits"), 0u) << r.server_counters->dump();
  EXPECT_EQ(r.reply_cache_hits, delta(r, "reply_cache", "cache_hits")) << "the record's typed figure";
  EXPECT_EQ(r.classes->replayed_told_failure, 0u);
  EXPECT_EQ(r.told->count("NFS3ERR_EXIST"), 0u);
  EXPECT_EQ(r.classes->correct, 20u);
  // proc3 counts the retransmissions answered from the cache too.
  EXPECT_EQ(delta(r, "proc3", "MKDIR"), 20u + delta(r, "reply_cache", "cache_hits"));
  expect_nothing_left(o.out_dir);
  std::filesystem::remove_all(o.out_dir);
}

}  // namespace
}  // namespace rpclab::harness::nfs
