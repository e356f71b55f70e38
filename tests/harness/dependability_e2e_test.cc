// `rpclab dependability` end to end: real servers, clients and faults made by
// the kernel. The fault cells need root (network namespaces); without it
// the run must skip them and say why.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "harness_e2e_util.h"
#include "support/nobody_programs.h"
#include "netem/command_log.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace rpclab::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::vector<std::string> rpclab(const TempDir& dir, std::vector<std::string> args) {
  std::vector<std::string> argv = {bin("rpclab"), "dependability", "--out", dir.file("run"), "--results-root",
                                   dir.file("results")};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

const json* find(const std::vector<json>& records, const std::string& block, const std::string& transport, int drc = 0) {
  for (const json& r : records)
    if (r["cell"]["block"] == block && r["transport"] == transport && r["cell"]["drc"] == drc) return &r;
  return nullptr;
}

uint64_t cls(const json& r, const char* name) { return r["classes"][name].get<uint64_t>(); }

// The first file called `name` under `dir`, or "".
std::filesystem::path find_file(const std::string& dir, const std::string& name) {
  std::error_code ec;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
    if (e.path().filename() == name) return e.path();
  return {};
}

// NEXT calls a server's stats file says it served; 0 before it is written.
uint64_t served_next_calls(const std::filesystem::path& stats) {
  json s = json::parse(std::ifstream(stats), nullptr, false);
  return s.is_object() ? s.value("next_calls", uint64_t{0}) : 0;
}

TEST(DependabilityE2E, QuickPresetFindsWhatEachTransportDoes) {
  if (!is_root()) GTEST_SKIP() << "the quick preset's fault cells need root for network namespaces";
  TempDir dir;
  ProcessResult r = run_program(rpclab(dir, {"--preset", "quick"}), 300s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  ASSERT_EQ(records.size(), 7u);
  for (const json& rec : records) ASSERT_EQ(rec["status"], "ok") << rec["label"] << ": " << rec["reason"];

  for (const char* t : {"sunrpc-udp", "sunrpc-tcp", "grpc"}) {  // no faults: every call correct
    const json* clean = find(records, "clean", t);
    ASSERT_NE(clean, nullptr) << t;
    EXPECT_EQ(cls(*clean, "correct"), 2000u) << t;
    EXPECT_EQ((*clean)["calls"], 2000u) << t;
    EXPECT_EQ((*clean)["levy_mismatches"], 0u) << t;
  }
  const json* udp = find(records, "udp-dup", "sunrpc-udp", 0);
  const json* udp_drc = find(records, "udp-dup", "sunrpc-udp", 1024);
  ASSERT_TRUE(udp && udp_drc);
  EXPECT_GT(cls(*udp, "duplicate_calls"), 0u) << "5% duplication must make libtirpc's UDP server run calls twice";
  EXPECT_EQ(cls(*udp_drc, "duplicate_calls"), 0u) << "the duplicate request cache must stop every re-execution";
  EXPECT_EQ(cls(*udp_drc, "extra_executions"), 0u);
  for (const char* t : {"sunrpc-tcp", "grpc"}) {
    const json* stream = find(records, "stream-dup", t);
    ASSERT_NE(stream, nullptr) << t;
    EXPECT_EQ(cls(*stream, "silent_duplicates"), 0u) << t;
    EXPECT_EQ(cls(*stream, "silent_loss"), 0u) << t;
  }
  // The link really duplicated packets, and the record says who did it.
  const json& faults = (*udp)["faults"];
  EXPECT_NE(faults["backend"], "none");
  EXPECT_NEAR(faults["measured_dup_pct"].get<double>(), 5.0, 1.5);

  for (const char* f : {"results.csv", "report.txt", "commands.log", "metadata.json", "silent-vs-faults.png"})
    EXPECT_TRUE(std::filesystem::exists(dir.file(std::string("run/") + f))) << f;
  EXPECT_NE(r.out.find("silent errors per 1,000,000 calls"), std::string::npos);
  EXPECT_NE(read_whole_file(dir.file("run/commands.log")).find("netns add"), std::string::npos);
  EXPECT_TRUE(namespaces_left_by(dir.file("run")).empty());
}

TEST(DependabilityE2E, WithoutRootTheLinkCellsAreSkippedWithTheReason) {
  NobodyPrograms nobody({"rpclab", "rpclab-server", "rpclab-client"});
  if (!nobody.why_not().empty()) GTEST_SKIP() << nobody.why_not();
  ProcessResult r = run_program(nobody.argv({"rpclab", "dependability", "--out", nobody.work("run"), "--results-root",
                                             nobody.work("results"), "--preset", "quick", "--calls", "200"}),
                                120s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto records = read_jsonl(nobody.work("run/results.jsonl"));
  ASSERT_EQ(records.size(), 7u);
  for (const json& rec : records) {
    if (rec["topology"] == "loopback") {
      EXPECT_EQ(rec["status"], "ok") << rec["reason"];
    } else {
      EXPECT_EQ(rec["status"], "skipped");
      EXPECT_NE(rec["reason"].get<std::string>().find("root"), std::string::npos) << rec["reason"];
      // The promised fields are there, as null, so tools can read every record alike.
      EXPECT_TRUE(rec["classes"].contains("silent_loss")) << rec;
      EXPECT_TRUE(rec["silent_per_million"]["value"].is_null()) << rec;
      EXPECT_EQ(rec["faults"]["loss_pct"], rec["cell"]["faults"]["loss_pct"]);
    }
  }
  EXPECT_NE(r.err.find("not root"), std::string::npos);
}

TEST(DependabilityE2E, ResumeRunsOnlyWhatIsMissing) {
  TempDir dir;
  auto args = rpclab(dir, {"--preset", "quick", "--topology", "loopback", "--transports", "sunrpc-tcp,grpc",
                           "--calls", "300", "--fault-calls", "300", "--dup", "0"});
  ProcessResult first = run_program(args, 120s);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  size_t cells = read_jsonl(dir.file("run/results.jsonl")).size();
  ASSERT_GE(cells, 2u);
  // Drop the last record, as a run killed mid-cell would have left it.
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  std::ofstream out(dir.file("run/results.jsonl"), std::ios::trunc);
  for (size_t i = 0; i + 1 < records.size(); ++i) out << records[i].dump() << "\n";
  out << "{\"torn\": ";  // and a torn line
  out.close();
  auto resume = args;
  resume.insert(resume.end(), {"--resume", dir.file("run")});
  ProcessResult second = run_program(resume, 120s);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("skipped"), std::string::npos) << "the torn line must be reported";
  std::ifstream in(dir.file("run/results.jsonl"));
  size_t valid = 0;
  for (std::string line; std::getline(in, line);) valid += !line.empty() && json::accept(line);
  EXPECT_EQ(valid, cells);

  // Resuming with other flags would mix two matrices in one file: refused.
  auto other = rpclab(dir, {"--preset", "quick", "--topology", "loopback", "--transports", "sunrpc-tcp,grpc",
                            "--calls", "301", "--fault-calls", "300", "--dup", "0", "--resume", dir.file("run")});
  ProcessResult refused = run_program(other, 30s);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("holds a run with other cells"), std::string::npos) << refused.err;
}

// A run folder holds one run. A second run given the same --out used to
// append its cells to the first run's results.jsonl and replace its
// metadata.json, so the folder described neither run: it is refused.
TEST(DependabilityE2E, ASecondRunIntoARunFolderIsRefusedAndTheFirstKept) {
  TempDir dir;
  auto one_cell = [&](const std::string& out) {  // the command: one loopback cell
    return run_program({bin("rpclab"), "dependability", "--preset", "quick", "--tables", "clean", "--transports",
                        "raw-udp", "--calls", "10", "--results-root", dir.file("results"), "--out", out},
                       60s);
  };
  ProcessResult first = one_cell(dir.file("a/run"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::string meta = read_whole_file(dir.file("a/run/metadata.json"));
  std::string results = read_whole_file(dir.file("a/run/results.jsonl"));

  ProcessResult again = one_cell(dir.file("a/run"));
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find("already holds a run"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("--resume " + dir.file("a/run")), std::string::npos) << again.err;
  EXPECT_EQ(read_whole_file(dir.file("a/run/metadata.json")), meta);
  EXPECT_EQ(read_whole_file(dir.file("a/run/results.jsonl")), results);

  // Someone else's files: refused, and none of them replaced.
  std::filesystem::create_directory(dir.file("mine"));
  std::ofstream(dir.file("mine/report.txt")) << "my own report\n";
  ProcessResult theirs = one_cell(dir.file("mine"));
  EXPECT_EQ(theirs.exit_code, 2) << theirs.err;
  EXPECT_NE(theirs.err.find("is not empty (it holds report.txt)"), std::string::npos) << theirs.err;
  EXPECT_EQ(read_whole_file(dir.file("mine/report.txt")), "my own report\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("mine/results.jsonl")));

  // An empty folder is used. Its run's id differs from the first run's,
  // though both folders are called "run".
  std::filesystem::create_directories(dir.file("b/run"));
  ProcessResult empty = one_cell(dir.file("b/run"));
  ASSERT_EQ(empty.exit_code, 0) << empty.err;
  std::string id_a = read_jsonl(dir.file("a/run/results.jsonl")).at(0)["run_id"];
  std::string id_b = read_jsonl(dir.file("b/run/results.jsonl")).at(0)["run_id"];
  EXPECT_NE(id_a, id_b);
  EXPECT_EQ(json::parse(meta)["run_id"], id_a) << "metadata.json names the run its records carry";

  // --resume reopens the folder, and the run keeps its id.
  ProcessResult resumed = run_program({bin("rpclab"), "dependability", "--preset", "quick", "--tables", "clean",
                                       "--transports", "raw-udp", "--calls", "10", "--results-root",
                                       dir.file("results"), "--resume", dir.file("a/run")},
                                      60s);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(json::parse(read_whole_file(dir.file("a/run/metadata.json")))["run_id"], id_a);
}

// A cell skipped for lack of root runs when the run is resumed as root, and
// the views then show its new record instead of the skipped one. The first
// run is nobody's, from copies of the programs (the clone may sit under a
// 0700 home), the resume root's, from the build.
TEST(DependabilityE2E, ResumingAsRootRunsTheCellsSkippedWithoutIt) {
  if (!is_root()) GTEST_SKIP() << "needs root to run first as an unprivileged user (setpriv), then as root";
  NobodyPrograms nobody({"rpclab", "rpclab-server", "rpclab-client"});
  if (!nobody.why_not().empty()) GTEST_SKIP() << nobody.why_not();
  std::vector<std::string> args = {"dependability", "--out", nobody.work("run"), "--results-root",
                                   nobody.work("results"), "--preset", "quick", "--tables", "clean,stream-dup",
                                   "--transports", "sunrpc-tcp", "--calls", "100", "--fault-calls", "100"};
  std::vector<std::string> as_nobody = {"rpclab"};
  as_nobody.insert(as_nobody.end(), args.begin(), args.end());
  ProcessResult first = run_program(nobody.argv(as_nobody), 120s);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto records = read_jsonl(nobody.work("run/results.jsonl"));
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(records[1]["status"], "skipped") << records[1];

  std::vector<std::string> as_root = {bin("rpclab")};
  as_root.insert(as_root.end(), args.begin(), args.end());
  as_root.insert(as_root.end(), {"--resume", nobody.work("run")});
  ProcessResult second = run_program(as_root, 120s);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  records = read_jsonl(nobody.work("run/results.jsonl"));
  ASSERT_EQ(records.size(), 3u) << "only the skipped cell runs again";
  EXPECT_EQ(records[2]["cell"], records[1]["cell"]);
  EXPECT_EQ(records[2]["status"], "ok") << records[2]["reason"];
  std::string report = read_whole_file(nobody.work("run/report.txt"));
  EXPECT_EQ(report.find("need root"), std::string::npos) << "the skipped record still shows: " << report;
  std::string csv = read_whole_file(nobody.work("run/results.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << "a header and one row per cell: " << csv;
}

TEST(DependabilityE2E, CtrlCStopsPromptlyAndKeepsFinishedCells) {
  TempDir dir;
  std::vector<std::string> argv = rpclab(dir, {"--preset", "levy1989", "--loads", "0", "--transports",
                                               "sunrpc-udp,sunrpc-tcp", "--calls", "20000", "--topology", "loopback",
                                               "--loss", "0", "--dup", "0"});
  Child run(argv, dir.file("run.log"));
  ASSERT_TRUE(wait_until([&dir] { return !read_jsonl(dir.file("run/results.jsonl")).empty(); }, 60s))
      << "no cell finished within 60 s";
  auto sent = std::chrono::steady_clock::now();
  int code = run.stop(SIGINT, 10s);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  EXPECT_EQ(code, 130) << describe_exit(code);
  EXPECT_LT(took, 5.0);
  for (const json& r : read_jsonl(dir.file("run/results.jsonl"))) EXPECT_EQ(r["status"], "ok");
  // The hint to go on repeats every flag of the run, not only the preset.
  std::string hint = "Continue with:\n  " + netem::shell_line(argv) + " --resume " + netem::shell_line({dir.file("run")});
  EXPECT_NE(read_whole_file(dir.file("run.log")).find(hint), std::string::npos) << read_whole_file(dir.file("run.log"));
  ProcessResult left = run_program({"pgrep", "-f", dir.path()});
  EXPECT_TRUE(left.out.empty()) << "processes of the run outlived it: " << left.out;
}

TEST(DependabilityE2E, AServerThatDiesFailsItsCellAndTheRunGoesOn) {
  TempDir dir;
  // Cells: sunrpc-tcp with 200,000 calls (its server is killed), then two of 300.
  Child run(rpclab(dir, {"--preset", "quick", "--topology", "loopback", "--transports", "sunrpc-tcp", "--calls",
                         "200000", "--fault-calls", "300", "--dup", "0"}),
            dir.file("run.log"));
  // Kill the first cell's server once it has served calls: the stats the
  // harness asks of it every second say so.
  std::filesystem::path ready;
  ASSERT_TRUE(wait_until([&dir, &ready] { return !(ready = find_file(dir.file("run/cells"), "server.ready")).empty(); },
                         30s));
  ASSERT_TRUE(wait_until([&ready] { return served_next_calls(ready.parent_path() / "server.stats") > 0; }, 30s))
      << "the first cell's server served no call within 30 s";
  pid_t server = json::parse(std::ifstream(ready))["pid"].get<pid_t>();
  ASSERT_EQ(::kill(server, SIGKILL), 0);
  ASSERT_TRUE(wait_until([&run] { return run.exit_code().has_value(); }, 120s, 50ms));
  std::optional<int> code = run.exit_code();
  EXPECT_EQ(*code, 1) << "some cells failed: the exit code must say so";
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  ASSERT_GE(records.size(), 2u);
  EXPECT_EQ(records[0]["status"], "failed");
  EXPECT_NE(records[0]["reason"].get<std::string>().find("server"), std::string::npos) << records[0]["reason"];
  EXPECT_EQ(records.back()["status"], "ok");
}

}  // namespace
}  // namespace rpclab::test
