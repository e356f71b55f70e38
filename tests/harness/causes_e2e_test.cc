// The causes of extra executions on the real stack: a cell with one
// controlled cause, run by `rpclab dependability` in two namespaces, must
// put its extra executions under that cause and leave none unexplained.
// Root only (namespaces, nftables, the nflog capture).
#include <gtest/gtest.h>

#include <chrono>

#include "harness_e2e_util.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// One sunrpc-udp two-host cell, one trial; its record.
json run_cell(const TempDir& dir, std::vector<std::string> args) {
  std::vector<std::string> argv = {bin("rpclab"), "dependability", "--out", dir.file("run"), "--results-root",
                                   dir.file("results"), "--preset", "quick", "--tables", "udp-dup", "--transports",
                                   "sunrpc-udp", "--drc", "0", "--trials", "1", "--faults-backend", "nftables"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult r = run_program(argv, 120s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  return records.size() == 1 ? records[0] : json();
}

uint64_t cause(const json& r, const char* key) { return r["causes"][key].get<uint64_t>(); }

uint64_t sum_of_causes(const json& r) {
  uint64_t sum = 0;
  for (const char* k : {"network_copy", "retransmit_timeout", "stale_reply_resend", "library_retry", "app_retry",
                        "unexplained"})
    sum += cause(r, k);
  return sum;
}

TEST(CausesE2E, DuplicatedRequestsAreNetworkCopies) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, nftables and the nflog capture";
  TempDir dir;
  json r = run_cell(dir, {"--dup", "10", "--direction", "to-server", "--retry-timeouts", "default", "--drain", "on",
                          "--fault-calls", "400", "--clients", "1"});
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  if (r["causes"]["capture"] != "nflog") GTEST_SKIP() << "no capture on this kernel: " << r["causes"]["capture"];
  EXPECT_GT(cause(r, "network_copy"), 0u) << r["causes"];
  EXPECT_EQ(cause(r, "unexplained"), 0u) << r["causes"];
  EXPECT_EQ(cause(r, "capture_drops"), 0u) << r["causes"];
  EXPECT_EQ(sum_of_causes(r), r["classes"]["extra_executions"].get<uint64_t>()) << r["causes"];
}

// A duplicated reply reaches the client during its next call, which
// libtirpc sends again at once: from then on every call runs twice. (The
// preset's 20 ms interval: with the default 15 s one, a stale reply uses
// up the whole 1 s budget and the call times out instead of resending.)
TEST(CausesE2E, ADuplicatedReplyMakesStaleReplyResends) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, nftables and the nflog capture";
  TempDir dir;
  json r = run_cell(dir, {"--dup", "5", "--direction", "to-client", "--fault-calls", "300", "--clients", "1"});
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  if (r["causes"]["capture"] != "nflog") GTEST_SKIP() << "no capture on this kernel: " << r["causes"]["capture"];
  EXPECT_GT(cause(r, "stale_reply_resend"), 0u) << r["causes"];
  EXPECT_EQ(cause(r, "network_copy"), 0u) << r["causes"] << ": the requests were not duplicated";
  EXPECT_EQ(cause(r, "unexplained"), 0u) << r["causes"];
  EXPECT_EQ(sum_of_causes(r), r["classes"]["extra_executions"].get<uint64_t>()) << r["causes"];
}

// A lost reply and a 20 ms retransmit interval: the client sends the call
// again with no reply in between, and the server runs it again.
TEST(CausesE2E, ALostReplyMakesARetransmitTimeout) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, nftables and the nflog capture";
  TempDir dir;
  json r = run_cell(dir, {"--dup", "0", "--loss", "10", "--direction", "to-client", "--retry-timeouts", "20",
                          "--drain", "on", "--fault-calls", "200", "--clients", "1"});
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  if (r["causes"]["capture"] != "nflog") GTEST_SKIP() << "no capture on this kernel: " << r["causes"]["capture"];
  EXPECT_GT(cause(r, "retransmit_timeout"), 0u) << r["causes"];
  EXPECT_EQ(cause(r, "unexplained"), 0u) << r["causes"];
  EXPECT_EQ(sum_of_causes(r), r["classes"]["extra_executions"].get<uint64_t>()) << r["causes"];
}

// Lost replies, a timeout shorter than the retransmit interval, and the
// application's retry: each extra execution is a new request (a new
// handle, so a new XID) for a call the client record shows it sent again.
TEST(CausesE2E, AnApplicationRetryIsAppRetry) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces and nftables";
  TempDir dir;
  json r = run_cell(dir, {"--dup", "0", "--loss", "10", "--direction", "to-client", "--retry-timeouts", "default",
                          "--timeout", "40", "--retry-policy", "app:5", "--fault-calls", "100", "--clients", "1"});
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  EXPECT_GT(cause(r, "app_retry"), 0u) << r["causes"];
  EXPECT_EQ(cause(r, "unexplained"), 0u) << r["causes"];
  EXPECT_EQ(sum_of_causes(r), r["classes"]["extra_executions"].get<uint64_t>()) << r["causes"];
}

}  // namespace
}  // namespace rpclab::test
