// `rpclab dependability --preset failures`, in small: one 3 s trial per
// kind of event (server-crash, partition, reset, server-stall) on the
// two-host link with nftables, sunrpc-tcp with the application's retry
// loop, at-most-once off and on. Real servers killed, stopped and started
// again, real partitions and resets by the kernel; what each event did is
// read back from the records the run wrote.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>

#include "common/atomic_file.h"
#include "harness_e2e_util.h"
#include "netem/topology/capabilities.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::string why_not_here() {
  if (!is_root()) return "the failures cells need root: their link lives between two network namespaces";
  netem::Capabilities caps = netem::probe_capabilities();
  if (!caps.netns) return "this kernel or container cannot create network namespaces";
  if (!caps.nftables) return "nftables with the netdev family does not work here: reset events need it";
  return "";
}

std::string kind_of(const json& record) { return record["cell"]["faults"]["events"][0]["kind"]; }

uint64_t cls(const json& r, const char* name) { return r["classes"][name].get<uint64_t>(); }

// Each kind of event did to the kernel or the process what it says, in
// every trial, and says so in the trial's record.
void expect_effects(const std::string& kind, const json& trial) {
  ASSERT_TRUE(trial.contains("events")) << kind;
  ASSERT_GE(trial["events"].size(), 1u) << kind;
  uint64_t effect = 0;
  for (const json& e : trial["events"]) {
    EXPECT_EQ(e["kind"], kind);
    EXPECT_GE(e["start_ms"].get<double>(), e["planned_start_ms"].get<double>());
    const json &start = e["start"], &end = e.value("end", json::object());
    if (kind == "server-crash") {
      EXPECT_EQ(start["signal"], "SIGKILL");
      EXPECT_NE(end["pid"], start["pid"]) << "a new server process";
      effect += end["ready_ms"].get<double>() > 0;
    } else if (kind == "partition") {
      effect += end["dropped_to_server"].get<uint64_t>() + end["dropped_to_client"].get<uint64_t>();
    } else if (kind == "reset") {
      effect += start["closed_at_server"].get<uint64_t>() + start["closed_at_client"].get<uint64_t>();
    } else {
      EXPECT_EQ(start["signal"], "SIGSTOP");
      effect += end["signal"] == "SIGCONT";
    }
  }
  EXPECT_GT(effect, 0u) << kind << ": no restart, no packet dropped, no connection closed: " << trial["events"];
  EXPECT_FALSE(trial.contains("warnings")) << trial["warnings"];
}

TEST(FailuresE2E, EachEventStrikesAndAtMostOnceLeavesNoDuplicate) {
  if (std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  auto t0 = std::chrono::steady_clock::now();
  // The preset's first table (its others are sunrpc-udp's 20 ms variants).
  ProcessResult r = run_program({bin("rpclab"), "dependability", "--preset", "failures", "--tables", "failures",
                                 "--transports", "sunrpc-tcp", "--retry-policy", "app:5", "--trials", "1", "--duration", "3", "--faults-backend",
                                 "nftables", "--out", dir.file("run"), "--results-root", dir.file("results")},
                                180s);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  ASSERT_EQ(records.size(), 8u) << "4 events x at-most-once off, on";
  std::map<std::string, uint64_t> dups_without;
  for (const json& rec : records) {
    const std::string kind = kind_of(rec);
    SCOPED_TRACE(rec["label"].get<std::string>());
    ASSERT_EQ(rec["status"], "ok") << rec["reason"];
    EXPECT_EQ(rec["retry_policy"], "app:5");
    bool on_the_link = kind == "partition" || kind == "reset";  // the server's events need no backend
    EXPECT_EQ(rec["faults"]["backend"], on_the_link ? "nftables" : "none");
    for (const json& trial : rec["per_trial"]) expect_effects(kind, trial);
    // The journal keeps every execution, through SIGKILLs too: no reply
    // the client received is missing from it.
    EXPECT_EQ(cls(rec, "silent_loss"), 0u);
    if (rec["at_most_once"].get<bool>())
      EXPECT_EQ(cls(rec, "duplicate_calls"), 0u) << "a repeat is answered from the table, never run again";
    else
      dups_without[kind] = cls(rec, "duplicate_calls");
  }
  // A 1.5 s stall outlasts the 1 s deadline: the call under way times out,
  // the loop sends it again on a new connection, and the resumed server
  // finds both requests waiting and runs both.
  EXPECT_GE(dups_without["server-stall"], 1u) << "the stalled call and its retry both ran";
  EXPECT_NE(r.out.find("Failures TCP cannot hide"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sunrpc-tcp +app:5 +at-most-once"), std::string::npos) << r.out;
  EXPECT_NE(read_whole_file(dir.file("run/commands.log")).find("# event server-crash #0 start"), std::string::npos);
  EXPECT_TRUE(namespaces_left_by(dir.file("run")).empty());
  std::cout << "[ measured ] duplicate calls without at-most-once, sunrpc-tcp app:5, one 3 s trial each:";
  for (const auto& [kind, n] : dups_without) std::cout << " " << kind << " " << n;
  std::cout << " (with at-most-once: 0 each); the run took " << took << " s\n";
}

// 20 calls are done long before a stall planned at 3 s: the trial met no
// event, so it measured nothing its cell names. It fails and says which
// event did not happen and when the calls were done, the cell is not
// measured, and the failures table names it so instead of five zeros.
TEST(FailuresE2E, ATrialWhoseCallsEndBeforeItsEventsIsNotAMeasurement) {
  if (!is_root()) GTEST_SKIP() << "needs root: a cell with timed events runs in namespaces of its own";
  TempDir dir;
  std::ofstream(dir.file("late.profile")) << "event = server-stall at=3s for=300ms\n";
  ProcessResult r = run_program({bin("rpclab"), "dependability", "--preset", "quick", "--tables", "clean",
                                 "--transports", "sunrpc-tcp", "--topology", "loopback", "--profile",
                                 dir.file("late.profile"), "--calls", "20", "--duration", "5", "--trials", "1",
                                 "--clients", "1", "--out", dir.file("run"), "--results-root", dir.file("results")},
                                120s);
  EXPECT_EQ(r.exit_code, 1) << "a trial failed: " << r.err;
  auto trials = read_jsonl(dir.file("run/trials.jsonl"));
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0]["status"], "failed");
  const std::string reason = trials[0].value("reason", "");
  EXPECT_NE(reason.find("server-stall (planned at 3000 ms)"), std::string::npos) << reason;
  EXPECT_NE(reason.find("the calls were done"), std::string::npos) << reason;
  EXPECT_EQ(trials[0]["events"], json::array()) << "no event happened";
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["status"], "failed");
  std::string report = read_whole_file(dir.file("run/report.txt"));
  EXPECT_NE(report.find("not measured (failed)"), std::string::npos) << report;
  EXPECT_EQ(report.find("0 / 0 / 0 / 0 / 0"), std::string::npos) << report;
  // The warning comes before any trial: the calls cap a trial with events.
  EXPECT_NE(r.err.find("--calls 20 caps"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rpclab::test
