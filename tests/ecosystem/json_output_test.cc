// Machine-readable output and provenance, end to end: --format json streams
// each finished cell's record to stdout while a person's lines go to
// stderr; metadata.json names the rpclab build, the host and its
// capabilities field by field; --title names the run in metadata.json and
// report.txt and survives a resume.
#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <climits>

#include <nlohmann/json.hpp>

#include "common/version.h"
#include "ecosystem_util.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::vector<std::string> in_folder(const TempDir& dir, std::vector<std::string> argv) {
  argv.insert(argv.begin(), bin("rpclab"));
  argv.insert(argv.end(), {"--out", dir.file("run"), "--results-root", dir.file("results")});
  return argv;
}

// Every line of `text` as JSON; a line that is not fails the test.
std::vector<json> json_lines(const std::string& text) {
  std::vector<json> records;
  for (const std::string& line : lines_of(text)) {
    json j = json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not a JSON line on stdout: " << line;
    if (!j.is_discarded()) records.push_back(j);
  }
  return records;
}

const std::vector<std::string> kTwoCells = {"dependability", "--preset", "quick", "--tables", "clean",
                                            "--transports", "sunrpc-udp,grpc", "--calls", "200", "--trials", "2"};

TEST(JsonOutput, DependabilityPrintsEachFinishedCellsRecordOnStdout) {
  TempDir dir;
  std::vector<std::string> args = kTwoCells;
  args.insert(args.end(), {"--format", "json", "--title", "loopback, two cells"});
  ProcessResult r = run_program(in_folder(dir, args), 300s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> streamed = json_lines(r.out);
  std::vector<json> stored = json_lines(slurp(dir.file("run/results.jsonl")));
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(streamed, stored) << "stdout must carry exactly the records results.jsonl holds";
  for (const json& rec : streamed) EXPECT_EQ(rec["status"], "ok") << rec["label"] << ": " << rec["reason"];
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "Dependability", r.err) << "the tables go to stderr";
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "Results: ", r.err);
}

TEST(JsonOutput, SpeedPrintsEachFinishedCellsRecordOnStdout) {
  TempDir dir;
  ProcessResult r = run_program(
      in_folder(dir, {"speed", "--transports", "raw-tcp", "--sizes", "12,512", "--clients", "1", "--topologies",
                      "loopback", "--connect", "persistent", "--trials", "2", "--calls-per-trial", "20", "--warmup",
                      "1", "--no-calibrate", "--format", "json"}),
      300s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> streamed = json_lines(r.out);
  ASSERT_EQ(streamed.size(), 2u) << r.out;
  EXPECT_EQ(streamed, json_lines(slurp(dir.file("run/results.jsonl"))));
  for (const json& rec : streamed) {
    EXPECT_EQ(rec["experiment"], "speed");
    EXPECT_EQ(rec["status"], "ok") << rec["label"] << ": " << rec["reason"];
  }
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "Results: ", r.err);
}

TEST(JsonOutput, DryRunListsTheCellsAsJsonLines) {
  ProcessResult text = run_program({bin("rpclab"), "dependability", "--preset", "quick", "--dry-run"});
  ProcessResult lines =
      run_program({bin("rpclab"), "dependability", "--preset", "quick", "--dry-run", "--format", "json"});
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  std::vector<json> cells = json_lines(lines.out);
  ASSERT_EQ(cells.size(), lines_of(text.out).size());
  for (size_t i = 0; i < cells.size(); ++i) {
    EXPECT_EQ(cells[i]["index"], i + 1);
    EXPECT_PRED_FORMAT2(testing::IsSubstring, cells[i]["label"].get<std::string>(), lines_of(text.out)[i]);
    EXPECT_TRUE(cells[i]["cell"].is_object());
    EXPECT_GT(cells[i]["calls"].get<uint64_t>(), 0u);
  }
}

TEST(Provenance, MetadataNamesTheBuildTheHostAndItsCapabilities) {
  TempDir dir;
  ProcessResult r = run_program(
      in_folder(dir, {"dependability", "--preset", "quick", "--tables", "clean", "--transports", "sunrpc-udp",
                      "--calls", "100", "--trials", "1", "--title", "after the kernel update"}),
      300s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json meta = json::parse(slurp(dir.file("run/metadata.json")));
  EXPECT_EQ(meta["title"], "after the kernel update");
  EXPECT_EQ(meta["rpclab"]["version"], version());
  EXPECT_EQ(meta["rpclab"]["git_commit"], git_commit());
  char host[HOST_NAME_MAX + 1] = {};
  ::gethostname(host, sizeof host - 1);
  utsname u{};
  ::uname(&u);
  EXPECT_EQ(meta["host"]["hostname"], host);
  EXPECT_EQ(meta["host"]["kernel"]["release"], u.release);
  EXPECT_EQ(meta["host"]["kernel"]["machine"], u.machine);
  EXPECT_EQ(meta["host"]["cpu_count"], ::sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_FALSE(meta["host"]["cpu_model"].get<std::string>().empty());
  EXPECT_NE(meta["host"]["cpu_model"], "unknown") << "/proc/cpuinfo names the CPU on this machine";
  const json& caps = meta["capabilities"];
  ASSERT_TRUE(caps.is_object()) << "capabilities must be fields, not text: " << caps.dump();
  EXPECT_EQ(caps["root"], ::geteuid() == 0);
  for (const char* field : {"network_namespaces", "host_netem", "nftables", "uml_netem", "rpcbind_installed",
                            "rpcbind_running", "sockperf", "gnuplot"})
    EXPECT_TRUE(caps.contains(field) && (caps[field].is_boolean() || caps[field].is_null())) << field;
  EXPECT_TRUE(caps["fault_backends"].is_array());
  EXPECT_GE(caps["cpus"].get<int>(), 1);
  EXPECT_EQ(slurp(dir.file("run/report.txt")).rfind("Title: after the kernel update\n", 0), 0u)
      << "report.txt must open with the title";

  // A resumed run keeps its name unless given a new one.
  ProcessResult again = run_program(in_folder(dir, {"dependability", "--preset", "quick", "--tables", "clean",
                                                    "--transports", "sunrpc-udp", "--calls", "100", "--trials", "1",
                                                    "--resume", dir.file("run")}),
                                    300s);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(slurp(dir.file("run/metadata.json")))["title"], "after the kernel update");
}

TEST(Provenance, ATitleThatIsNotOneLineIsRefused) {
  for (const std::string& title : {std::string(), std::string("two\nlines"), std::string(201, 'x')}) {
    ProcessResult r =
        run_program({bin("rpclab"), "dependability", "--preset", "quick", "--dry-run", "--title", title});
    EXPECT_EQ(r.exit_code, 2) << "'" << title << "': " << r.out;
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "--title", r.err);
  }
}

}  // namespace
}  // namespace rpclab::test
