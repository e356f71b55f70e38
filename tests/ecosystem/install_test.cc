// `make install DESTDIR=...` as a packager runs it, and the installed
// programs run from the staged prefix: their version, a dry run, man pages
// made from --help, bash completion, and, with the source tree hidden
// under an empty mount, a real run that finds its profiles and Levy's 1989
// figures where make install put them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "ecosystem_util.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> kPrograms = {"rpclab", "rpclab-server", "rpclab-client", "rpclab-linktest",
                                            "rpclab-linkprobe"};
const std::vector<std::string> kManPages = {"rpclab",        "rpclab-dependability", "rpclab-speed",
                                            "rpclab-report", "rpclab-doctor",        "rpclab-server",
                                            "rpclab-client", "rpclab-linktest",      "rpclab-linkprobe"};

class Installed : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    stage_ = new TempDir;
    make_ = new ProcessResult(run_program({"make", "-C", RPCLAB_SOURCE_DIR, "install", "BUILD=" RPCLAB_BIN_DIR,
                                           "DESTDIR=" + stage_->path(), "PREFIX=/usr/local", "JOBS=2"},
                                          600s));
  }
  static void TearDownTestSuite() {
    delete make_;
    delete stage_;
  }
  void SetUp() override { ASSERT_EQ(make_->exit_code, 0) << make_->out << make_->err; }

  static std::string prefix(const std::string& path = "") { return stage_->path() + "/usr/local/" + path; }

  static TempDir* stage_;
  static ProcessResult* make_;
};

TempDir* Installed::stage_ = nullptr;
ProcessResult* Installed::make_ = nullptr;

TEST_F(Installed, EveryPartLandsUnderThePrefix) {
  std::vector<std::string> parts = {"libexec/rpclab/rpclab-uml-xstate.so",
                                    "share/rpclab/profiles/lossy-lan.profile",
                                    "share/rpclab/data/levy1989-dependability.csv",
                                    "share/rpclab/data/levy1989-speed.csv",
                                    "share/rpclab/rpclab.rpc",
                                    "share/rpclab/idl/rpclab.x",
                                    "share/rpclab/idl/rpclab.proto",
                                    "share/doc/rpclab/README.md",
                                    "share/doc/rpclab/docs/running.md"};
  for (const std::string& p : kPrograms) parts.push_back("bin/" + p);
  for (const std::string& m : kManPages) parts.push_back("share/man/man1/" + m + ".1");
  for (const char* c : {"rpclab", "rpclab-server", "rpclab-client"})
    parts.push_back(std::string("share/bash-completion/completions/") + c);
  for (const std::string& part : parts) EXPECT_TRUE(std::filesystem::exists(prefix(part))) << part;
  for (const std::string& p : kPrograms) EXPECT_EQ(::access(prefix("bin/" + p).c_str(), X_OK), 0) << p;
}

TEST_F(Installed, ProgramsPrintTheBuildsVersion) {
  for (const std::string& p : kPrograms) {
    ProcessResult installed = run_program({prefix("bin/" + p), "--version"});
    ProcessResult built = run_program({bin(p), "--version"});
    EXPECT_EQ(installed.exit_code, 0) << p << ": " << installed.err;
    EXPECT_EQ(installed.out, built.out) << p;
    EXPECT_EQ(installed.out.rfind(p + " ", 0), 0u) << installed.out;
  }
}

// As many cells as the build's own rpclab lists for the same command: the
// quick preset grows with the transport table.
size_t quick_cells() {
  ProcessResult built =
      run_program({bin("rpclab"), "dependability", "--preset", "quick", "--profile", "lossy-lan", "--dry-run"});
  EXPECT_EQ(built.exit_code, 0) << built.err;
  return lines_of(built.out).size();
}

TEST_F(Installed, RpclabDryRunListsTheCellsOfANamedProfile) {
  ProcessResult r = run_program({prefix("bin/rpclab"), "dependability", "--preset", "quick", "--profile",
                                 "lossy-lan", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out).size(), quick_cells()) << r.out;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "loss", r.out);
}

TEST_F(Installed, ManPagesAreMadeFromEachProgramsHelp) {
  for (const std::string& page : kManPages) {
    std::string text = slurp(prefix("share/man/man1/" + page + ".1"));
    std::string upper = page;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_PRED_FORMAT2(testing::IsSubstring, ".TH " + upper + " \"1\"", text) << page;
    EXPECT_PRED_FORMAT2(testing::IsSubstring, ".SH OPTIONS", text) << page;
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "\\-\\-version", text) << page;
    EXPECT_EQ(text, slurp(RPCLAB_BIN_DIR "/man/" + page + ".1")) << page << ": installed differs from the build's";
  }
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\\-\\-preset", slurp(prefix("share/man/man1/rpclab-dependability.1")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\\-\\-transport", slurp(prefix("share/man/man1/rpclab-server.1")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "538253705", slurp(prefix("share/man/man1/rpclab.1")));
}

TEST_F(Installed, CompletionOffersTheInstalledProfiles) {
  std::string file = prefix("share/bash-completion/completions/rpclab");
  EXPECT_EQ(slurp(file), slurp(RPCLAB_SOURCE_DIR "/dist/rpclab.bash-completion"));
  std::string script = "source " + file + "\nCOMP_WORDS=(" + prefix("bin/rpclab") +
                       " dependability --profile lossy)\nCOMP_CWORD=3\n_rpclab\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
  ProcessResult r = run_program({"bash", "--norc", "--noprofile", "-c", script});
  EXPECT_EQ(lines_of(r.out), (std::vector<std::string>{"lossy-dup", "lossy-lan"})) << r.err;
}

// The source tree (and the build inside it) hidden under an empty tmpfs in
// a private mount namespace: only what make install put under the prefix
// is there to be found.
TEST_F(Installed, RunsWithTheSourceTreeHidden) {
  if (::geteuid() != 0) GTEST_SKIP() << "hiding the source tree takes a private mount namespace: needs root";
  std::string source = std::filesystem::canonical(RPCLAB_SOURCE_DIR).string();
  if (std::filesystem::canonical(stage_->path()).string().rfind(source + "/", 0) == 0)
    GTEST_SKIP() << "the staging folder " << stage_->path() << " is inside the source tree; set TMPDIR elsewhere";
  TempDir work;
  std::string rpclab = prefix("bin/rpclab");
  std::string script = "mount -t tmpfs rpclab-hidden " + source + " && ! test -e " + source +
                       "/docs && " + rpclab + " dependability --preset quick --profile lossy-lan --dry-run > " +
                       work.file("dry-run.txt") + " && " + rpclab +
                       " dependability --preset quick --tables clean --transports sunrpc-udp --calls 200 "
                       "--trials 1 --out " + work.file("run") + " --results-root " + work.file("results");
  ProcessResult r =
      run_program({"unshare", "--mount", "--propagation", "private", "sh", "-c", script}, 300s);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(lines_of(slurp(work.file("dry-run.txt"))).size(), quick_cells()) << "the profile was not found";
  std::string report = slurp(work.file("run/report.txt"));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "Sun RPC (udp) (Levy 1989)", report)
      << "Levy's 1989 figures must come from share/rpclab/data";
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\"status\":\"ok\"", slurp(work.file("run/results.jsonl")));
}

}  // namespace
}  // namespace rpclab::test
