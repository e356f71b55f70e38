// Adapters in every table (issue 24 item 5), through the real rpclab
// program: a preset's plan runs each adapter built and names each one it
// leaves out with the reason; and a speed cell of an adapter whose server
// writes no stats file still gets the server's CPU per call, measured by
// the harness from /proc and marked so.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;

const std::string kFixtures = RPCLAB_SOURCE_DIR "/tests/adapters/fixtures";

ProcessResult rpclab_with(const std::string& adapters, std::vector<std::string> args,
                          std::chrono::milliseconds limit = 60s) {
  static TempDir cache;  // adapters from RPCLAB_ADAPTERS build there, not in $HOME
  std::vector<std::string> argv = {"env", "RPCLAB_ADAPTERS=" + adapters, "XDG_CACHE_HOME=" + cache.path(),
                                   bin("rpclab")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, limit);
}

size_t lines_with(const std::string& text, const std::string& words) {
  size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.find(words) != std::string::npos;
  return n;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// An adapter whose programs do not exist: never built.
void plant_unbuilt(const TempDir& dir, const std::string& name) {
  ::mkdir(dir.file(name).c_str(), 0755);
  write(dir.file(name + "/manifest.json"),
        R"({"manifest_version":1,"name":")" + name + R"(","summary":"s","library":"l","build":["false"],)"
        R"("server":["{out}/nowhere-server"],"client":["{out}/nowhere-client"],"carrier":"stream",)"
        R"("operations":["next"],"retry_policies":["none"],"library_retry":{"kind":"none","what":"w"}})");
}

// The quick preset's dependability tables of every RPC system run each
// adapter built (the fixtures' programs are Python, so built; py-good, a
// stream, is in the clean table and the stream-dup one), and the plan says why an adapter
// not built is not there. The adapters shipped in adapters/ are each
// either in the plan or named with their reason.
TEST(AdapterPresets, TheQuickPlanRunsTheBuiltAdaptersAndNamesTheOthersWithTheReason) {
  run_program({"rm", "-rf", bin("adapters/ghost-preset")});
  TempDir dir;
  plant_unbuilt(dir, "ghost-preset");
  ProcessResult plan = rpclab_with(kFixtures + ":" + dir.path(),
                                   {"dependability", "--preset", "quick", "--dry-run", "--out", dir.file("run")});
  ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_EQ(lines_with(plan.out, "py-good"), 2u) << plan.out;  // clean, stream-dup
  EXPECT_EQ(lines_with(plan.out, "ghost-preset"), 0u) << plan.out;
  EXPECT_EQ(lines_with(plan.err, "rpclab dependability: adapter ghost-preset skipped: not built: "), 1u) << plan.err;
  for (const char* shipped : {"thrift", "grpc-go", "tonic"}) {
    bool planned = lines_with(plan.out, shipped) > 0;
    bool said = lines_with(plan.err, std::string("adapter ") + shipped + " skipped: ") == 1;
    EXPECT_NE(planned, said) << shipped << " must be either in the plan or skipped with its reason:\n"
                             << plan.out << plan.err;
  }
  // Named with --transports, the preset runs what it is told: no note.
  ProcessResult named = rpclab_with(dir.path(), {"dependability", "--preset", "quick", "--transports", "grpc",
                                                 "--dry-run", "--out", dir.file("run2")});
  ASSERT_EQ(named.exit_code, 0) << named.out << named.err;
  EXPECT_EQ(lines_with(named.err, "ghost-preset"), 0u) << named.err;
  // The speed preset too.
  ProcessResult speed = rpclab_with(kFixtures + ":" + dir.path(),
                                    {"speed", "--preset", "quick", "--dry-run", "--out", dir.file("run3")});
  ASSERT_EQ(speed.exit_code, 0) << speed.out << speed.err;
  EXPECT_EQ(lines_with(speed.err, "rpclab speed: adapter ghost-preset skipped: not built: "), 1u) << speed.err;
}

// The Thrift adapter's own programs under a manifest that claims no stats
// file: its speed cell runs (no longer skipped), and its server's CPU per
// call comes from /proc, marked "proc" in the record and ^ in the table.
// Shape only: no figure is asserted beyond being there.
TEST(AdapterPresets, ASpeedCellOfAnAdapterWithoutStatsGetsTheServersCpuFromProc) {
  std::string server = bin("adapters/thrift/thrift-server"), client = bin("adapters/thrift/thrift-client");
  if (::access(server.c_str(), X_OK) != 0 || ::access(client.c_str(), X_OK) != 0)
    GTEST_SKIP() << "the Thrift adapter is not built (" << bin("adapters/thrift/build-failed")
                 << " says why; tools/deps.sh installs libthrift-dev and thrift-compiler)";
  TempDir dir;
  std::ifstream in(RPCLAB_SOURCE_DIR "/adapters/thrift/manifest.json");
  nlohmann::json m = nlohmann::json::parse(in);
  m["name"] = "thrift-nostats";
  m["build"] = nlohmann::json::array();
  m["server"] = {server};
  m["client"] = {client};
  m["server_stats"] = false;
  ::mkdir(dir.file("thrift-nostats").c_str(), 0755);
  write(dir.file("thrift-nostats/manifest.json"), m.dump());
  ProcessResult r = rpclab_with(dir.path(), {"speed", "--preset", "quick", "--transports", "thrift-nostats",
                                             "--sizes", "12", "--clients", "1", "--connect", "persistent",
                                             "--topologies", "loopback", "--trials", "2", "--calls-per-trial", "200",
                                             "--warmup", "10", "--no-calibrate", "--out", dir.file("run")},
                                180s);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream results(dir.file("run/results.jsonl"));
  size_t cells = 0;
  for (std::string line; std::getline(results, line);) {
    nlohmann::json cell = nlohmann::json::parse(line);
    if (cell.value("transport", "") != "thrift-nostats" && cell["cell"].value("transport", "") != "thrift-nostats")
      continue;
    ++cells;
    ASSERT_EQ(cell.value("status", ""), "ok") << line;
    const nlohmann::json& cpu = cell["cpu_us_per_call"];
    ASSERT_TRUE(cpu.is_object()) << line;
    EXPECT_EQ(cpu.value("server_from", ""), "proc") << line;
    EXPECT_TRUE(cpu["server"].is_number() && cpu["server"].get<double>() >= 0) << line;
    EXPECT_TRUE(cpu["client"].is_number()) << line;
  }
  EXPECT_EQ(cells, 1u) << r.out;
  EXPECT_EQ(lines_with(r.out, "(^ in srv: the harness measured the server's CPU from /proc"), 1u) << r.out;
}

}  // namespace
}  // namespace rpclab::test
