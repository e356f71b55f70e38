// `rpclab speed` end to end on a small matrix: a record for every cell, the
// interface fields in each measured one, a reason for each skipped one.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "client/call_record.h"
#include "common/atomic_file.h"
#include "transport/transport.h"
#include "harness/speed/speed_matrix.h"
#include "harness_e2e_util.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

TEST(SpeedE2E, EveryCellIsMeasuredOrSkippedWithAReason) {
  TempDir dir;
  ProcessResult r = run_program({bin("rpclab"), "speed", "--preset", "quick", "--sizes", "12,65536", "--clients", "1",
                                 "--trials", "2", "--calls-per-trial", "20", "--warmup", "5", "--out", dir.file("run"),
                                 "--results-root", dir.file("results")},
                                300s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  size_t measured = 0, skipped = 0;
  for (const json& rec : records) {
    ASSERT_NE(rec["status"], "failed") << rec["label"] << ": " << rec["reason"];
    if (rec["status"] == "skipped") {
      ++skipped;
      EXPECT_FALSE(rec["reason"].get<std::string>().empty()) << rec["label"];
      continue;
    }
    ++measured;
    if (rec.value("calibration", false)) continue;
    for (const char* k : {"experiment", "transport", "topology", "connect", "clients", "size", "trials",
                          "calls_per_trial", "seconds_per_100_calls", "p50_us", "p90_us", "p99_us", "p999_us", "max_us",
                          "calls_per_s", "cpu_us_per_call", "ratio_to_floor", "latency_pinned", "status", "reason"})
      EXPECT_TRUE(rec.contains(k)) << rec["label"] << " lacks " << k;
    EXPECT_GT(rec["p50_us"].get<double>(), 0) << rec["label"];
    EXPECT_LE(rec["p50_us"].get<double>(), rec["p99_us"].get<double>());
    EXPECT_EQ(rec["calls_measured"], 40u) << rec["label"];
    // An adapter's row is rpclab's, loaded from its manifest where its
    // build is: not in this process's table. It is never a floor.
    const TransportRow* row = find_transport(rec["transport"].get<std::string>());
    if (!row || !row->floor()) {
      EXPECT_TRUE(rec["ratio_to_floor"].is_number()) << rec["label"] << ": its floor ran just before it";
    }
  }
  EXPECT_GT(measured, 0u);
  EXPECT_GT(skipped, 0u) << "64 KiB over sunrpc-udp's default buffer must be skipped";
  // A payload past a row's limit is skipped, never truncated, and the
  // reason says how to carry more where the row knows how.
  size_t past_a_limit = 0;
  for (const json& rec : records) {
    if (harness::is_calibration(rec["transport"].get<std::string>())) continue;
    const TransportRow* row = find_transport(rec["transport"].get<std::string>());
    if (!row) continue;  // an adapter's row (rpclab's, from its manifest): no payload limit of ours
    ClientOptions options;
    options.transport = std::string(row->name);
    if (rec["size"].get<size_t>() <= row->client_settings(options).max_payload) continue;
    ++past_a_limit;
    EXPECT_EQ(rec["status"], "skipped") << rec["label"];
    EXPECT_NE(rec["reason"].get<std::string>().find(row->traits.payload_note), std::string::npos) << rec["reason"];
  }
  EXPECT_GT(past_a_limit, 0u);
  EXPECT_NE(r.out.find("Levy's timing table"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.file("run/latency-vs-size.png")));
  EXPECT_TRUE(namespaces_left_by(dir.file("run")).empty());
}

// ghz (tools/ghz.sh, built with every build) calls ECHO on rpclab's own
// gRPC server in the same run, one connection, one call at a time, as
// many calls as the grpc row makes in all its trials; the calibration
// table puts its p50 beside the grpc row's, and the grpc record keeps
// the ratio.
TEST(SpeedE2E, GhzCalibratesTheGrpcRowInTheSameRun) {
  TempDir dir;
  ProcessResult r = run_program({bin("rpclab"), "speed", "--preset", "quick", "--transports", "raw-tcp,grpc", "--sizes",
                                 "12", "--clients", "1", "--connect", "persistent", "--topologies", "loopback",
                                 "--trials", "2", "--calls-per-trial", "100", "--warmup", "5", "--out",
                                 dir.file("run"), "--results-root", dir.file("results")},
                                300s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json *ghz = nullptr, *grpc = nullptr;
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  for (const json& rec : records) {
    if (rec["transport"] == harness::kGhz) ghz = &rec;
    if (rec["transport"] == "grpc") grpc = &rec;
  }
  ASSERT_TRUE(ghz && grpc) << "no ghz or grpc cell in the run";
  if ((*ghz)["status"] == "skipped") GTEST_SKIP() << "ghz did not run: " << (*ghz)["reason"].get<std::string>();
  ASSERT_EQ((*ghz)["status"], "ok") << (*ghz)["reason"];
  EXPECT_TRUE((*ghz)["calibration"].get<bool>());
  EXPECT_EQ((*ghz)["calls_measured"], 200u) << "the grpc row's calls in all its trials, the warm-up left out";
  EXPECT_GT((*ghz)["p50_us"].get<double>(), 0);
  EXPECT_LE((*ghz)["p50_us"].get<double>(), (*ghz)["p99_us"].get<double>());
  ASSERT_TRUE((*grpc)["ratio_to_sockperf"].is_number()) << "the grpc record keeps its ratio to ghz";
  EXPECT_NEAR((*grpc)["ratio_to_sockperf"].get<double>(),
              (*grpc)["p50_us"].get<double>() / (*ghz)["p50_us"].get<double>(), 1e-9);
  EXPECT_NE(r.out.find("grpc/ghz"), std::string::npos) << r.out;
  // ghz's calls reached the server: its report counted them one by one.
  json report = json::parse(read_whole_file(std::filesystem::path((*ghz)["cell_dir"].get<std::string>()) /
                                            "trial-1" / "ghz-report.json"));
  EXPECT_EQ(report["count"], 200u) << "ghz counts the calls it tallied";
  EXPECT_EQ(report["statusCodeDistribution"]["OK"], 200u);
}

// Parallel clients begin behind the start gate (common/start_gate.h), not
// at a guessed instant: each trial says so, how long the gate waited for
// the last client, and its clients' first recorded calls left together
// (launched at once on 2 CPUs without a gate, three rpclab-clients begin
// 30 to 150 ms apart: each spends about 30 ms of CPU loading its libraries).
TEST(SpeedE2E, ParallelClientsBeginTogetherBehindTheStartGate) {
  TempDir dir;
  ProcessResult r = run_program({bin("rpclab"), "speed", "--transports", "raw-tcp,sunrpc-tcp", "--sizes", "12",
                                 "--clients", "1,3", "--topologies", "loopback", "--connect", "persistent",
                                 "--trials", "2", "--calls-per-trial", "20", "--warmup", "5", "--no-calibrate", "--out", dir.file("run"), "--results-root", dir.file("results")},
                                120s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t gated = 0;
  for (const json& trial : read_jsonl(dir.file("run/trials.jsonl"))) {
    if (trial.value("record", "") != "trial") continue;
    ASSERT_EQ(trial["status"], "ok") << trial["label"] << ": " << trial["reason"];
    if (trial["cell"]["clients"] == 1) {
      EXPECT_FALSE(trial.contains("start_by")) << trial["label"];
      continue;
    }
    ++gated;
    EXPECT_EQ(trial.value("start_by", ""), "gate") << trial["label"];
    EXPECT_GT(trial["start_barrier_ms"].get<double>(), 0) << trial["label"];
    EXPECT_LT(trial["start_skew_ms"].get<double>(), 50) << trial["label"];
  }
  EXPECT_EQ(gated, 2u * 2u) << "two transports, two trials of three clients";
  // A cell's clients are kept across its trials (placement/kept_clients.h):
  // client k of a cell is one process in both trials, and each cell has
  // its own.
  std::map<std::string, std::set<int64_t>> pids;  // by cell folder and client
  std::set<int64_t> every;
  size_t kept = 0;
  for (const json& trial : read_jsonl(dir.file("run/trials.jsonl"))) {
    if (trial.value("record", "") != "trial") continue;
    kept += trial.value("clients_kept", false);
    std::filesystem::path trial_dir = trial["trial_dir"].get<std::string>();
    for (int k = 1; k <= trial["cell"]["clients"].get<int>(); ++k) {
      std::string rec = (trial_dir / ("client-" + std::to_string(k) + ".rec")).string();
      int64_t pid = CallRecord::read_file(rec).header["pid"].get<int64_t>();
      pids[trial_dir.parent_path().string() + "/" + std::to_string(k)].insert(pid);
      every.insert(pid);
    }
  }
  EXPECT_EQ(kept, 2u * 2u * 2u) << "every trial of the four cells";
  for (const auto& [client, its] : pids) EXPECT_EQ(its.size(), 1u) << client << ": one process for both trials";
  EXPECT_EQ(every.size(), pids.size()) << "each cell's clients are its own";
  // The gate's FIFOs leave with it, and the kept clients' with them.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.file("run")))
    EXPECT_FALSE(entry.is_fifo()) << entry.path();
}

// Open loop: the rate-sweep preset on two transports and two rates beside
// the closed loop; each open-loop cell says its offered and achieved rate,
// the table marks a knee for each transport, and the p99 is plotted.
TEST(SpeedE2E, RateSweepPrintsTheKneeOfEachTransport) {
  TempDir dir;
  ProcessResult r = run_program({bin("rpclab"), "speed", "--preset", "rate-sweep", "--transports", "raw-udp,sunrpc-tcp",
                                 "--rates", "0,500,2000", "--trials", "2", "--calls-per-trial", "100", "--out",
                                 dir.file("run"), "--results-root", dir.file("results")},
                                180s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t open = 0;
  for (const json& rec : read_jsonl(dir.file("run/results.jsonl"))) {
    ASSERT_EQ(rec["status"], "ok") << rec["label"] << ": " << rec["reason"];
    EXPECT_EQ(rec["calls_measured"], 200u) << rec["label"];
    if (!rec["cell"].contains("rate_per_s")) {
      EXPECT_FALSE(rec.contains("offered_per_s")) << rec["label"];
      continue;
    }
    ++open;
    EXPECT_NE(rec["label"].get<std::string>().find(" @ "), std::string::npos) << rec["label"];
    EXPECT_EQ(rec["offered_per_s"], rec["cell"]["rate_per_s"]) << rec["label"];
    EXPECT_GT(rec["calls_per_s"].get<double>(), 0) << rec["label"];
    EXPECT_LE(rec["p50_us"].get<double>(), rec["p99_us"].get<double>()) << rec["label"];
  }
  EXPECT_EQ(open, 4u);
  EXPECT_NE(r.out.find("Open loop: each client's calls due on a fixed schedule"), std::string::npos) << r.out;
  size_t knees = r.out.find("Knee per transport:");
  ASSERT_NE(knees, std::string::npos) << r.out;
  for (const char* t : {"raw-udp", "sunrpc-tcp"})
    EXPECT_NE(r.out.find(std::string("  ") + t + ": ", knees), std::string::npos) << t << "\n" << r.out;
  EXPECT_NE(r.out.find("closed loop ("), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir.file("run/rate-p99.png")));
  EXPECT_TRUE(namespaces_left_by(dir.file("run")).empty());
}

}  // namespace
}  // namespace rpclab::test
