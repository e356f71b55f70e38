// The causes of extra executions on the real stack: a cell with one
// controlled cause, run by `rpclab dependability` in two namespaces (or,
// on loopback, in one namespace of its own), must put its extra
// executions under that cause and leave none unexplained. Root only
// (namespaces, nftables, the capture: eBPF, and nflog where named).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/atomic_file.h"
#include "server/journal_reader.h"
#include "harness/causes/cell_causes.h"
#include "harness/dependability/dependability_trial.h"
#include "harness/placement/local_placement.h"
#include "harness/causes/wire_record.h"
#include "netem/topology/topology.h"
#include "capture_probe.h"
#include "harness_e2e_util.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// One sunrpc-udp cell of the quick preset's `table`, one trial; its record.
json run_table(const TempDir& dir, const std::string& table, std::vector<std::string> args) {
  std::vector<std::string> argv = {bin("rpclab"), "dependability", "--out", dir.file("run"), "--results-root",
                                   dir.file("results"), "--preset", "quick", "--tables", table, "--transports",
                                   "sunrpc-udp", "--drc", "0", "--trials", "1"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult r = run_program(argv, 120s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  return records.size() == 1 ? records[0] : json();
}

// One sunrpc-udp two-host cell, its link's faults made by nftables.
json run_cell(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"--faults-backend", "nftables"});
  return run_table(dir, "udp-dup", args);
}

// The trial had a wire capture: "bpf", or "nflog" (perhaps with why not eBPF).
bool captured(const json& r) {
  std::string c = r["causes"].value("capture", "");
  return c == "bpf" || c.rfind("nflog", 0) == 0;
}

// The cell had the capture this kernel can run (capture_probe.h asked the
// kernel before the run): none is the product's failure.
::testing::AssertionResult had_capture(const json& r, const std::string& backend) {
  if (captured(r)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "this kernel can run the " << backend
                                       << " capture, and the cell recorded none: " << r["causes"]["capture"];
}

uint64_t cause(const json& r, const char* key) { return r["causes"][key].get<uint64_t>(); }

uint64_t sum_of_causes(const json& r) {
  uint64_t sum = 0;
  for (const char* k : {"network_copy", "retransmit_timeout", "stale_reply_resend", "library_retry", "app_retry",
                        "unexplained"})
    sum += cause(r, k);
  return sum;
}

// The causes account for every extra execution, and none is unexplained.
void expect_all_explained(const json& r) {
  EXPECT_EQ(cause(r, "unexplained"), 0u) << r["causes"];
  EXPECT_EQ(sum_of_causes(r), r["classes"]["extra_executions"].get<uint64_t>()) << r["causes"];
}

// The copy `dup` makes passes the eBPF capture before its original, and
// nflog's after: both must make it a copy of that transmission.
void expect_network_copies(const std::string& backend) {
  if (auto why = why_no_capture_here(backend); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  json r = run_cell(dir, {"--dup", "10", "--direction", "to-server", "--retry-timeouts", "default", "--drain", "on",
                          "--fault-calls", "400", "--clients", "1", "--wire-capture", backend});
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  ASSERT_TRUE(had_capture(r, backend));
  EXPECT_GT(cause(r, "network_copy"), 0u) << r["causes"];
  EXPECT_EQ(cause(r, "capture_drops"), 0u) << r["causes"];
  expect_all_explained(r);
}

TEST(CausesE2E, DuplicatedRequestsAreNetworkCopies) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, nftables and the capture";
  expect_network_copies("bpf");
}

TEST(CausesE2E, DuplicatedRequestsAreNetworkCopiesOnNflog) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, nftables and the nflog capture";
  expect_network_copies("nflog");
}

// A duplicated reply reaches the client during its next call, which
// libtirpc sends again at once: from then on every call runs twice. (The
// preset's 20 ms interval: with the default 15 s one, a stale reply uses
// up the whole 1 s budget and the call times out instead of resending.)
TEST(CausesE2E, ADuplicatedReplyMakesStaleReplyResends) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, nftables and the capture";
  if (auto why = why_no_capture_here("on"); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  json r = run_cell(dir, {"--dup", "5", "--direction", "to-client", "--fault-calls", "300", "--clients", "1"});
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  ASSERT_TRUE(had_capture(r, "on"));
  EXPECT_GT(cause(r, "stale_reply_resend"), 0u) << r["causes"];
  EXPECT_EQ(cause(r, "network_copy"), 0u) << r["causes"] << ": the requests were not duplicated";
  expect_all_explained(r);
}

// A lost reply and a 20 ms retransmit interval: the client sends the call
// again with no reply in between, and the server runs it again.
TEST(CausesE2E, ALostReplyMakesARetransmitTimeout) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, nftables and the capture";
  if (auto why = why_no_capture_here("on"); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  json r = run_cell(dir, {"--dup", "0", "--loss", "10", "--direction", "to-client", "--retry-timeouts", "20",
                          "--drain", "on", "--fault-calls", "200", "--clients", "1"});
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  ASSERT_TRUE(had_capture(r, "on"));
  EXPECT_GT(cause(r, "retransmit_timeout"), 0u) << r["causes"];
  expect_all_explained(r);
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
  expect_all_explained(r);
}

// Loopback, in a namespace of its own: the server stalls (SIGSTOP) for
// 300 ms while the client's 20 ms retransmit timer sends the call again;
// once it goes on it runs every copy, and the replies to the copies reach
// the client during its next calls, each making libtirpc send that call
// again at once. The capture on the namespace's lo tells them apart.
TEST(CausesE2E, OnLoopbackAStalledServerMakesRetransmitsAndStaleReplyResends) {
  if (!is_root()) GTEST_SKIP() << "needs root: a network namespace of its own, nftables and the capture";
  TempDir dir;
  std::ofstream(dir.file("stall.profile")) << "event = server-stall at=200ms for=300ms\n";
  json r = run_table(dir, "clean", {"--topology", "loopback", "--profile", dir.file("stall.profile"),
                                    "--retry-timeouts", "20", "--timeout", "1000", "--calls", "1000000",
                                    "--duration", "1", "--clients", "1"});
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  EXPECT_EQ(r["topology"], "loopback");
  EXPECT_EQ(r["topology_place"], "loopback in a private namespace");
  EXPECT_TRUE(namespaces_left_by(dir.file("run")).empty()) << "the cell's namespace outlived it";
  ASSERT_TRUE(captured(r)) << r["causes"];
  EXPECT_GT(r["classes"]["extra_executions"].get<uint64_t>(), 0u) << "the stall made no extra execution";
  EXPECT_GT(cause(r, "retransmit_timeout"), 0u) << r["causes"];
  EXPECT_EQ(cause(r, "network_copy"), 0u) << r["causes"] << ": nothing on loopback copies a datagram";
  EXPECT_EQ(cause(r, "capture_drops"), 0u) << r["causes"];
  expect_all_explained(r);
  // The stall's retransmissions ran when it ended; their replies, stale by
  // then, set off the cascade, which the run folder draws.
  EXPECT_GE(cause(r, "cascades"), 1u) << r["causes"];
  EXPECT_GE(r["causes"]["cascade_starts"]["retransmit_timeout"].get<uint64_t>(), 1u) << r["causes"];
  bool gnuplot = read_whole_file(dir.file("run/metadata.json")).find("\"gnuplot\": true") != std::string::npos;
  EXPECT_EQ(std::filesystem::exists(dir.file("run/cascades-001.png")), gnuplot) << "the cascade is drawn with gnuplot";
}

// gRPC's retry policy re-sends a call whose first attempt ran: the server
// is stopped with the call queued; a partition takes the reply it sends
// when it continues; a reset then fails the call with UNAVAILABLE before
// any reply header came, so the library retries it once the link heals,
// and the server runs it again with grpc-previous-rpc-attempts 1.
TEST(CausesE2E, AGrpcRetryAfterUnavailableIsLibraryRetry) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces and nftables for the partition and the reset";
  TempDir dir;
  std::ofstream(dir.file("retry.profile")) << "event = server-stall at=200ms for=300ms\n"
                                              "event = partition at=400ms for=600ms\n"
                                              "event = reset at=700ms\n";
  ProcessResult p = run_program({bin("rpclab"), "dependability", "--out", dir.file("run"), "--results-root",
                                 dir.file("results"), "--preset", "quick", "--tables", "clean", "--transports", "grpc",
                                 "--trials", "1", "--topology", "two-host", "--profile", dir.file("retry.profile"),
                                 "--retry-policy", "library", "--timeout", "5000", "--duration", "2", "--clients",
                                 "1", "--calls", "100000000"},
                                120s);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  ASSERT_EQ(records.size(), 1u);
  const json& r = records[0];
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  EXPECT_GE(cause(r, "library_retry"), 1u) << r["causes"];
  EXPECT_EQ(cause(r, "library_retry"), r["classes"]["extra_executions"].get<uint64_t>()) << r["causes"];
  expect_all_explained(r);
}

// The kernel's side of the loopback capture: on the lo of the cell's own
// namespace a datagram passes the egress hook once and the ingress hook
// once, so with no retransmission (libtirpc's 15 s interval) and no faults
// the wire holds each call exactly once as sent and once as answered.
void expect_each_request_and_reply_once(const std::string& backend) {
  if (auto why = why_no_capture_here(backend); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  json r = run_table(dir, "clean", {"--topology", "loopback", "--calls", "500", "--clients", "1", "--wire-capture",
                                    backend});
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump();
  ASSERT_TRUE(had_capture(r, backend));
  ASSERT_EQ(r["calls"], 500u);
  ASSERT_EQ(r["classes"]["extra_executions"], 0u);
  harness::Wire wire =
      harness::parse_wire(read_whole_file(r["per_trial"][0]["trial_dir"].get<std::string>() + "/wire.bin"));
  EXPECT_EQ(wire.drops, 0u);
  std::map<uint32_t, std::pair<int, int>> seen;  // XID -> (sent, replies)
  for (const harness::WirePacket& p : wire.packets) {
    ASSERT_NE(p.kind, harness::WireKind::kCopy) << "no rule on loopback marks a copy";
    (p.kind == harness::WireKind::kSent ? seen[p.xid].first : seen[p.xid].second)++;
  }
  EXPECT_EQ(seen.size(), 500u) << "one XID per call";
  for (const auto& [xid, n] : seen) {
    EXPECT_EQ(n.first, 1) << "XID " << xid << " logged as sent " << n.first << " times";
    EXPECT_EQ(n.second, 1) << "XID " << xid << " logged as answered " << n.second << " times";
  }
  // The stamps the attribution matches runs by: the server's kernel
  // stamped each request after the capture saw it leave and before its
  // reply came back (nflog's are whole microseconds).
  std::map<uint32_t, std::pair<int64_t, int64_t>> times;  // XID -> (sent, answered)
  for (const harness::WirePacket& p : wire.packets)
    (p.kind == harness::WireKind::kSent ? times[p.xid].first : times[p.xid].second) = p.realtime_ns;
  JournalFile journal(r["per_trial"][0]["trial_dir"].get<std::string>() + "/journal.bin");
  size_t checked = 0;
  for_each_record(journal.bytes(), [&](const journal::Record& rec) {
    ASSERT_TRUE(rec.known & journal::kKnowsKernelArrival);
    auto [sent, answered] = times[rec.request_id];
    EXPECT_GE(rec.realtime_ns, sent) << "XID " << rec.request_id;
    EXPECT_LE(rec.realtime_ns, answered + 1000) << "XID " << rec.request_id;
    ++checked;
  });
  EXPECT_EQ(checked, 500u);
}

TEST(CausesE2E, OnLoopbackTheCaptureSeesEachRequestAndReplyOnce) {
  if (!is_root()) GTEST_SKIP() << "needs root: a network namespace of its own and the eBPF capture";
  expect_each_request_and_reply_once("bpf");
}

TEST(CausesE2E, OnLoopbackTheNflogCaptureSeesEachRequestAndReplyOnce) {
  if (!is_root()) GTEST_SKIP() << "needs root: a network namespace of its own, nftables and the nflog capture";
  expect_each_request_and_reply_once("nflog");
}

// Without a namespace of its own a loopback cell runs on the host's lo,
// where rpclab puts no rules: its record says why there is no capture.
TEST(LoopbackCapture, OnTheHostsLoTheCellSaysWhyThereIsNone) {
  netem::Capabilities caps;
  std::string why = harness::why_host_loopback(caps);
  EXPECT_NE(why.find("not root"), std::string::npos) << why;
  caps.root = true;
  EXPECT_NE(harness::why_host_loopback(caps).find("cannot create network namespaces"), std::string::npos);
  caps.netns = true;
  EXPECT_EQ(harness::why_host_loopback(caps), "") << "root with namespaces: a namespace of its own";

  process::CommandLog log;
  harness::CellConfig cell;
  cell.transport = "sunrpc-udp";
  netem::Host host_lo{"", "127.0.0.1", ""};
  harness::TrialCapture c =
      harness::start_capture(cell, "on", {&host_lo, "host loopback (" + why + ")"}, "127.0.0.1:700", log);
  EXPECT_EQ(c.capture, nullptr);
  EXPECT_EQ(c.missing, "host loopback (" + why + "): rpclab puts no capture rules on the host's own lo");
  EXPECT_TRUE(log.lines().empty()) << "nothing was run on the host";
}

// The capture on a real link picks its backend and says which ran; where
// eBPF cannot start (here: a device that is not there) the record says
// why, and `bpf` alone does not fall back.
TEST(WireCaptureBackends, SaysWhichRanAndWhyTheOthersCouldNot) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, eBPF and nftables";
  process::CommandLog log;
  auto topology = netem::Topology::create(netem::TopologyKind::kTwoHost, log);
  const netem::Host& client = topology->client();
  {
    harness::WireCapture best(client, topology->server().address, 2049, "on", log);
    ASSERT_EQ(best.missing(), "");
    if (best.backend() != "bpf") {
      EXPECT_EQ(best.backend().rfind("nflog (no eBPF: ", 0), 0u) << best.backend();
    }
  }
  netem::Host gone = client;
  gone.ifname = "no-such-dev";
  // Newer kernels accept a netdev chain for a device yet to come, so nflog
  // may start; either way the record says why eBPF did not.
  harness::WireCapture fallback(gone, topology->server().address, 2049, "on", log);
  if (fallback.missing().empty()) {
    EXPECT_EQ(fallback.backend(), "nflog (no eBPF: no device no-such-dev in the client's namespace)");
  } else {
    EXPECT_NE(fallback.missing().find("nftables log rules failed"), std::string::npos) << fallback.missing();
    EXPECT_NE(fallback.missing().find("; and no eBPF: no device no-such-dev"), std::string::npos)
        << fallback.missing();
  }
  harness::WireCapture bpf_only(gone, topology->server().address, 2049, "bpf", log);
  EXPECT_EQ(bpf_only.missing(), "eBPF: no device no-such-dev in the client's namespace");
  EXPECT_EQ(bpf_only.backend(), "");
}

}  // namespace
}  // namespace rpclab::test
