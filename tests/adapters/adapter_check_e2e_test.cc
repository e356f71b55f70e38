// `rpclab adapter check` end to end, and adapters as rows of the real
// rpclab program: the Thrift, gRPC-Go and tonic adapters pass every step; each broken
// fixture (fixtures/pycounter.py --bug ...) fails the step it breaks, with
// the words that say why (every step that can fail but build and ready); a manifest with a bad field is skipped
// naming the file and the field; an adapter that is not built is listed as
// skipped with the reason.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;

const std::string kFixtures = RPCLAB_SOURCE_DIR "/tests/adapters/fixtures";

// rpclab with the fixtures (and `more`) among its adapters.
ProcessResult rpclab(std::vector<std::string> args, const std::string& more = "",
                     std::chrono::milliseconds limit = 60s) {
  static TempDir cache;  // adapters from RPCLAB_ADAPTERS build there, not in $HOME
  std::vector<std::string> argv = {"env", "RPCLAB_ADAPTERS=" + kFixtures + (more.empty() ? "" : ":" + more),
                                   "XDG_CACHE_HOME=" + cache.path(), bin("rpclab")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, limit);
}

bool has_line(const std::string& out, const std::string& start, const std::string& words) {
  for (size_t at = 0; (at = out.find(start, at)) != std::string::npos; ++at)
    if ((at == 0 || out[at - 1] == '\n') && out.substr(at, out.find('\n', at) - at).find(words) != std::string::npos)
      return true;
  return false;
}

std::string thrift_missing() {
  if (::access("/usr/include/thrift/Thrift.h", R_OK) != 0) return "libthrift-dev is not installed (tools/deps.sh)";
  if (run_program({"sh", "-c", "command -v thrift"}).exit_code != 0) return "thrift-compiler is not installed (tools/deps.sh)";
  return "";
}

// `rpclab adapter check NAME` passes every step (the cell as root only).
void expect_check_passes(const std::string& name, std::chrono::milliseconds limit) {
  TempDir dir;
  std::vector<std::string> args = {"adapter", "check", name, "--dir", dir.file("check")};
  // The trial needs a namespace of its own and netem on it.
  if (::geteuid() != 0) args.push_back("--no-cell");
  ProcessResult r = rpclab(args, "", limit);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* step : {"build", "ready", "ledger", "kill", "garbage", "timeout", "sigterm", "stop"})
    EXPECT_TRUE(has_line(r.out, "ok    " + std::string(step), "")) << step << ":\n" << r.out;
  if (::geteuid() == 0) {
    EXPECT_TRUE(has_line(r.out, "ok    cell", "classes add up")) << r.out;
  }
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

TEST(AdapterCheck, ThriftPassesEveryStep) {
  if (std::string why = thrift_missing(); !why.empty()) GTEST_SKIP() << why;
  expect_check_passes("thrift", 120s);
}

// gRPC-Go's build needs a go toolchain (Debian 12's golang-go is 1.19) and,
// the first time, the Go module proxy.
std::string go_missing() {
  if (run_program({"sh", "-c", "command -v go"}).exit_code != 0)
    return "no go toolchain on PATH (golang-go, tools/deps.sh)";
  return "";
}

TEST(AdapterCheck, GrpcGoPassesEveryStep) {
  if (std::string why = go_missing(); !why.empty()) GTEST_SKIP() << why;
  // 180 s: a first build downloads its modules and compiles gRPC-Go.
  expect_check_passes("grpc-go", 180s);
}

// tonic's build needs Rust 1.88 or newer (adapters/tonic/toolchain.sh says
// why not, in one line: a machine fact, on tests/ci-skip-reasons.txt) and,
// the first time, crates.io.
TEST(AdapterCheck, TonicPassesEveryStep) {
  ProcessResult toolchain = run_program({"sh", RPCLAB_SOURCE_DIR "/adapters/tonic/toolchain.sh"});
  if (toolchain.exit_code != 0) GTEST_SKIP() << "this machine cannot build tonic: " << toolchain.out;
  // 600 s: a cold build downloads the crates and compiles tokio, hyper, h2 and tonic.
  expect_check_passes("tonic", 600s);
}

// Debian 12's own Rust (1.63) is older than tonic 0.14 needs: the build
// stops before cargo runs, with the one line the presets then print as
// the reason, whatever rustc this machine has (a planted one, first on PATH).
TEST(AdapterBuild, TonicOnDebiansOwnRustStopsWithTheReasonInOneLine) {
  TempDir dir;
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"bin/rustc", "echo 'rustc 1.63.0 (4b91a6ea7 2022-08-08)'"},
                                   {"bin/cargo", "echo 'cargo ran' >&2; exit 99"}}) {
    std::string path = dir.plant(name, "#!/bin/sh\n" + text + "\n");
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }
  ProcessResult r = run_program({"env", "PATH=" + dir.file("bin") + ":/usr/bin:/bin", "make", "-s", "-C",
                                 RPCLAB_SOURCE_DIR "/adapters/tonic", "OUT=" + dir.file("out")});
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("tonic: rustc 1.63.0 is older than 1.88, which tonic 0.14 needs"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("cargo ran"), std::string::npos) << r.err;
}

TEST(AdapterCheck, APythonCounterWrittenToTheContractPasses) {
  TempDir dir;
  ProcessResult r = rpclab({"adapter", "check", "py-good", "--no-cell", "--dir", dir.file("check")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* step : {"timeout", "sigterm", "stop", "table"})
    EXPECT_TRUE(has_line(r.out, "ok    " + std::string(step), "")) << step << ":\n" << r.out;
  EXPECT_TRUE(has_line(r.out, "skip  cell", "--no-cell")) << r.out;
}

TEST(AdapterCheck, EachBrokenFixtureFailsTheStepItBreaks) {
  struct Case {
    const char* adapter;
    const char* step;
    const char* words;
  };
  for (const Case& c : {Case{"py-off-by-one", "ledger",
                             "exec line 1 (client 1 seq 0): times_executed 0, and ServerCore's next() gives 1"},
                        Case{"py-buffered-journal", "kill", "after SIGKILL it is not in the journal: the line must be written before the reply"},
                        Case{"py-forgets-on-restart", "kill",
                             "after the restart the server expected seq 0 of client 3, and its journal ran up to"},
                        Case{"py-dies-on-garbage", "garbage", "the server died of random bytes"},
                        Case{"py-sigterm-exits-1", "stop", "on SIGTERM it must exit with status 0"},
                        Case{"py-timeout-as-other", "timeout",
                             ".rec line 2 (client 5 seq 0): other \"timed out\", and the server was stopped (SIGSTOP) "
                             "past --timeout 500: a call with no reply in time is `timeout`"},
                        Case{"py-sigterm-drops-call", "sigterm",
                             ".rec line 2: missing, and client 6 seq 0 was in flight when SIGTERM came"},
                        Case{"py-table-replays", "table",
                             "at-most-once.jsonl: call line 4 is {\"exec\":[7,2,1,3,2]}, and ServerCore with its table "
                             "gives {\"table\":[7,2,0,2,1]}"}}) {
    TempDir dir;
    ProcessResult r = rpclab({"adapter", "check", c.adapter, "--no-cell", "--dir", dir.file("check")});
    EXPECT_EQ(r.exit_code, 1) << c.adapter << ": " << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, std::string("FAIL  ") + c.step, c.words)) << c.adapter << ":\n" << r.out;
    EXPECT_TRUE(has_line(r.out, "-     cell", "not run")) << c.adapter << ":\n" << r.out;
  }
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// A manifest naming programs that do not exist, in `dir`/NAME.
void plant(const TempDir& dir, const std::string& name, const std::string& carrier) {
  ::mkdir(dir.file(name).c_str(), 0755);
  write(dir.file(name + "/manifest.json"),
        R"({"manifest_version":1,"name":")" + name + R"(","summary":"s","library":"l","build":["false"],)"
        R"("server":["{out}/nowhere-server"],"client":["{out}/nowhere-client"],"carrier":")" + carrier +
        R"(","operations":["next"],"retry_policies":["none"],"library_retry":{"kind":"none","what":"w"}})");
}

TEST(AdapterRows, AManifestWithABadFieldIsSkippedNamingTheFileAndTheField) {
  TempDir dir;
  plant(dir, "broken", "tcp");
  ProcessResult r = rpclab({"adapter", "list"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has_line(r.out, "broken", "skipped  its manifest is not valid: " + dir.file("broken/manifest.json") +
                                            ": field 'carrier': \"tcp\" is not one of datagram, stream"))
      << r.out;
  EXPECT_TRUE(has_line(r.out, "py-good", "built")) << r.out;
}

TEST(AdapterRows, AnUnbuiltAdapterIsListedAsSkippedWithTheReason) {
  run_program({"rm", "-rf", bin("adapters/ghost")});  // a build this test failed before
  TempDir dir;
  plant(dir, "ghost", "datagram");
  ProcessResult list = rpclab({"adapter", "list"}, dir.path());
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(has_line(list.out, "py-good", "built")) << list.out;
  EXPECT_TRUE(has_line(list.out, "ghost", "skipped  not built: ")) << list.out;
  EXPECT_TRUE(has_line(list.out, "ghost", "nowhere-server is missing; `rpclab adapter check ghost` builds it"))
      << list.out;
  // Wherever a transport is named, the skipped one is said with its reason.
  ProcessResult run = rpclab({"dependability", "--transports", "ghost", "--preset", "quick"}, dir.path());
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  // (after any other skipped adapter: tonic where this machine has no Rust 1.88)
  EXPECT_NE(run.err.find("; skipped adapters: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("ghost (not built"), std::string::npos) << run.err;
  // Its build fails: the check says so, and the next start gives that reason.
  ProcessResult check = rpclab({"adapter", "check", "ghost", "--dir", dir.file("check")}, dir.path());
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_TRUE(has_line(check.out, "FAIL  build", "exited with code 1")) << check.out;
  ProcessResult again = rpclab({"adapter", "list"}, dir.path());
  EXPECT_TRUE(has_line(again.out, "ghost", "skipped  its build failed (")) << again.out;
}

}  // namespace
}  // namespace rpclab::test

namespace rpclab::test {
namespace {

// docs/adapter-manifest.schema.json says what rpclab's reader takes: every
// manifest here meets it, and a field the reader refuses, it refuses too.
TEST(AdapterManifestSchema, TheManifestsHereMeetItAndABadFieldDoesNot) {
  if (run_program({"python3", "-c", "import jsonschema"}).exit_code != 0)
    GTEST_SKIP() << "python3 has no jsonschema module (apt-get install python3-jsonschema)";
  const std::string script = R"(
import glob, json, sys, jsonschema
root = sys.argv[1]
schema = json.load(open(root + '/docs/adapter-manifest.schema.json'))
check = jsonschema.Draft202012Validator(schema)
files = glob.glob(root + '/adapters/*/manifest.json') + glob.glob(root + '/tests/adapters/fixtures/*/manifest.json')
for f in files:
    for e in check.iter_errors(json.load(open(f))):
        print('invalid', f, e.message)
bad = json.load(open(root + '/adapters/thrift/manifest.json'))
bad['carrier'] = 'tcp'
print('refused' if list(check.iter_errors(bad)) else 'accepted', len(files))
)";
  ProcessResult r = run_program({"python3", "-c", script, RPCLAB_SOURCE_DIR});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "refused 12\n") << r.out;  // 3 shipped adapters, 9 fixtures
}

}  // namespace
}  // namespace rpclab::test
