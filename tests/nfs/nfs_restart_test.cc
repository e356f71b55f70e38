// The restart event end to end as root (harness/nfs/restart_event.h): 10
// MKDIRs over UDP, and at step 5 the replies dropped, the server seen to
// run the MKDIR, the requests dropped too, the server restarted, the link
// opened again. clnt_dg retransmits
// the MKDIR with the same xid to a server whose reply cache the restart
// emptied: it runs again and answers NFS3ERR_EXIST. Exactly that step is
// "replayed, told failure", cause "restart", and the record holds the
// evidence: the events in order, the reply the drop took, and (knfsd) the
// cache empty after the restart and a miss for the retransmission.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "common/sanitizer.h"
#include "harness/nfs/ganesha_server.h"
#include "harness/nfs/knfsd_server.h"
#include "harness/nfs/nfs_cell.h"

namespace rpclab::harness::nfs {
namespace {

NfsCellOptions restart_at_5(const std::string& server, const std::string& transport = "udp") {
  NfsCellOptions o;
  o.server = server;
  o.transport = transport;
  o.count = 10;
  o.ops = "mkdir";
  o.restart_at = 5;
  o.timeout_ms = 30000;   // the struck call outlasts the restart
  o.retransmit_ms = 200;  // clnt_dg resends every 200 ms (no backoff in libtirpc 1.3.3)
  o.client_program = RPCLAB_BIN_DIR "/rpclab-nfs-client";
  o.cell_program = RPCLAB_BIN_DIR "/rpclab-nfs-cell";
  o.guest_timeout_s = 120;
  o.out_dir = ::testing::TempDir() + "rpclab-nfs-restart-" + server + "-" + transport + "-" + std::to_string(::getpid());
  std::filesystem::remove_all(o.out_dir);
  return o;
}

// What both servers show: exactly step 5 replayed and told EEXIST, from
// the restart, and the events in their order.
void expect_replay_at_step_5(const NfsTrial& r) {
  ASSERT_TRUE(r.classes && r.told && r.restart) << "no restart record";
  const NfsRestart& x = *r.restart;
  EXPECT_EQ(x.step, 5u);
  EXPECT_EQ(x.name, "c1-s5");
  EXPECT_EQ(x.told, "NFS3ERR_EXIST");
  EXPECT_EQ(x.step_class, "replayed_told_failure");
  EXPECT_EQ(x.cause, "restart");
  EXPECT_FALSE(x.why_no_replay) << *x.why_no_replay;
  EXPECT_EQ(r.classes->calls, 10u);
  EXPECT_EQ(r.classes->replayed_told_failure, 1u);
  EXPECT_EQ(r.classes->correct, 9u);
  EXPECT_EQ(r.told->at("NFS3ERR_EXIST"), 1u);
  EXPECT_EQ(r.told->at("NFS3_OK"), 9u);
  EXPECT_EQ(r.server_end, "running");
  std::vector<std::string> order;
  for (const auto& e : x.events) order.push_back(e.what);
  ASSERT_EQ(order, (std::vector<std::string>{"at_gate", "replies_dropped", "executed", "requests_dropped", "restarted",
                                              "replies_pass", "requests_pass"}));
  for (size_t i = 1; i < x.events.size(); ++i) EXPECT_GE(x.events[i].at_ms, x.events[i - 1].at_ms);
  // The first execution's reply (at least) was dropped on its way back.
  ASSERT_TRUE(x.events[5].link && x.events[6].link);
  EXPECT_GE(x.events[5].link->at("dropped_to_client").get<uint64_t>(), 1u) << x.events[5].link->dump();
  EXPECT_TRUE(x.events[6].link->contains("dropped_to_server")) << x.events[6].link->dump();
}

TEST(NfsRestart, KnfsdUdpMkdirRetransmittedAfterARestartIsToldExist) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (the guest's namespaces, netem, knfsd)";
  if (std::string why = knfsd_missing(); !why.empty()) GTEST_SKIP() << why;
#if RPCLAB_ASAN
  GTEST_SKIP() << "AddressSanitizer cannot place its shadow memory in a user-mode-linux guest's address space";
#endif
  NfsCellOptions o = restart_at_5("knfsd");
  NfsTrial r = run_nfs_cell(o);
  expect_replay_at_step_5(r);
  if (HasFatalFailure()) return;
  const auto& events = r.restart->events;
  auto counter = [](const nlohmann::json& c, const char* group, const char* key) {
    return c.at(group).at(key).get<uint64_t>();
  };
  const nlohmann::json& cut_off = events[3].server_counters.value();    // requests_dropped: just before the restart
  const nlohmann::json& restarted = events[4].server_counters.value();
  const nlohmann::json& after = r.server_counters->at("after");
  // Steps 1-5 in the cache before the restart; nothing after it (no request
  // could arrive meanwhile), the counters kept.
  EXPECT_EQ(counter(cut_off, "reply_cache", "num_entries"), 5u);
  EXPECT_EQ(counter(cut_off, "reply_cache", "cache_misses"), 5u);
  EXPECT_EQ(counter(restarted, "reply_cache", "num_entries"), 0u);
  EXPECT_EQ(counter(restarted, "reply_cache", "cache_misses"), 5u);
  EXPECT_EQ(counter(restarted, "proc3", "MKDIR"), counter(cut_off, "proc3", "MKDIR"));
  // After it: steps 6-10 and step 5's retransmission, which missed the
  // emptied cache and ran again (proc3 also counts cache hits: at least).
  EXPECT_EQ(counter(after, "reply_cache", "cache_misses") - counter(restarted, "reply_cache", "cache_misses"), 6u);
  EXPECT_GE(counter(after, "proc3", "MKDIR") - counter(restarted, "proc3", "MKDIR"), 6u);
  std::filesystem::remove_all(o.out_dir);
}

TEST(NfsRestart, GaneshaUdpMkdirRetransmittedAfterARestartIsToldExist) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (namespaces, nftables, ganesha)";
  if (std::string why = ganesha_missing(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o = restart_at_5("nfs-ganesha");
  NfsTrial r = run_nfs_cell(o);
  expect_replay_at_step_5(r);
  EXPECT_TRUE(std::filesystem::is_directory(o.out_dir + "/server/export/c1-s5"));
  std::filesystem::remove_all(o.out_dir);
}

// Over TCP nothing runs twice: the step is told NFS3_OK after all (the
// first execution's reply, which the killed server's orphaned socket kept
// retransmitting until the link opened), and clnt_vc, which does not
// reconnect, fails every later call on the closed connection.
TEST(NfsRestart, GaneshaTcpHasNoReplayAndTheLaterCallsFail) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (namespaces, nftables, ganesha)";
  if (std::string why = ganesha_missing(); !why.empty()) GTEST_SKIP() << why;
  NfsCellOptions o = restart_at_5("nfs-ganesha", "tcp");
  NfsTrial r = run_nfs_cell(o);
  ASSERT_TRUE(r.classes && r.told && r.restart);
  EXPECT_EQ(r.restart->told, "NFS3_OK");
  EXPECT_EQ(r.restart->step_class, "correct");
  EXPECT_FALSE(r.restart->cause);
  EXPECT_TRUE(r.restart->why_no_replay);
  EXPECT_EQ(r.classes->replayed_told_failure, 0u);
  EXPECT_EQ(r.classes->correct, 5u);
  EXPECT_EQ(r.classes->clean_failure, 5u);  // steps 6-10 on the dead handle
  EXPECT_EQ(r.told->at("error"), 5u);
  EXPECT_EQ(r.client_exits->at(0), "exited with code 0") << "the client died (SIGPIPE?)";
  std::filesystem::remove_all(o.out_dir);
}

}  // namespace
}  // namespace rpclab::harness::nfs
