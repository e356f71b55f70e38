// `make install DESTDIR=...` as a packager runs it (its recipe, without the
// build it depends on: the suite's build is done, and a rebuild here, when
// HEAD has moved since, relinked build/rpclab under the other lanes'
// running tests), and the installed
// programs run from the staged prefix: their version, a dry run, man pages
// made from --help (one for every program and every command `rpclab
// --help` lists, each with examples that use flags its command has, and
// its exit status), bash completion, and, with the source tree hidden
// under an empty mount, a real run that finds its profiles and Levy's 1989
// figures where make install put them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "ecosystem_util.h"
#include "support/help_text.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> kPrograms = {"rpclab",           "rpclab-server",     "rpclab-client",
                                            "rpclab-linktest",  "rpclab-linkprobe",  "rpclab-nfs-client",
                                            "rpclab-nfs-fsops", "rpclab-nfs-libnfs", "rpclab-nfs-cell"};
const std::vector<std::string> kManPages = {"rpclab",           "rpclab-dependability", "rpclab-speed",
                                            "rpclab-nfs",       "rpclab-report",        "rpclab-compare",
                                            "rpclab-doctor",    "rpclab-clean-net",     "rpclab-server",
                                            "rpclab-client",    "rpclab-linktest",      "rpclab-linkprobe",
                                            "rpclab-nfs-client", "rpclab-nfs-fsops",    "rpclab-nfs-libnfs",
                                            "rpclab-nfs-cell",
                                            "rpclab-adapter",   "rpclab-presets",       "rpclab-time-constants"};

// A man page's section, from `.SH heading` to the next `.SH` ("" when it
// has none).
std::string man_section(const std::string& page, const std::string& heading) {
  size_t start = page.find("\n.SH " + heading + "\n");
  if (start == std::string::npos) return "";
  start = page.find('\n', start + 1) + 1;
  size_t end = page.find("\n.SH ", start);
  return page.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
}

// Roff text as a reader sees it: \- a dash, no font changes.
std::string unroffed(std::string text) {
  for (const char* font : {"\\fB", "\\fR", "\\fI", "\\fP"})
    for (size_t at; (at = text.find(font)) != std::string::npos;) text.erase(at, 3);
  for (size_t at; (at = text.find("\\-")) != std::string::npos;) text.erase(at, 1);
  return text;
}

// The lines of a section that follow `macro ` (".B " for the example
// command lines and the exit codes), as a reader sees them.
std::vector<std::string> lines_after(const std::string& section, const std::string& macro) {
  std::vector<std::string> found;
  for (const std::string& line : lines_of(section))
    if (line.rfind(macro + " ", 0) == 0) found.push_back(unroffed(line.substr(macro.size() + 1)));
  return found;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

class Installed : public testing::Test {
 protected:
  // `make -n install` prints the recipe, the build's steps first, then
  // the install step itself, which is run as printed.
  static void SetUpTestSuite() {
    stage_ = new TempDir;
    ProcessResult recipe =
        run_program({"make", "-n", "--no-print-directory", "-C", RPCLAB_SOURCE_DIR, "install", "BUILD=" RPCLAB_BIN_DIR,
                     "DESTDIR=" + stage_->path(), "PREFIX=/usr/local", "JOBS=2"},
                    60s);
    std::vector<std::string> lines = lines_of(recipe.out);
    std::string install_step = lines.empty() ? "" : lines.back();
    if (recipe.exit_code != 0 || install_step.find("cmake --install") == std::string::npos) {
      make_ = new ProcessResult(recipe);
      make_->exit_code = recipe.exit_code != 0 ? recipe.exit_code : 1;
      make_->err += "\nmake -n install printed no `cmake --install` step last:\n" + recipe.out;
      return;
    }
    make_ = new ProcessResult(run_program({"sh", "-c", "cd " RPCLAB_SOURCE_DIR " && " + install_step}, 600s));
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
                                    "share/doc/rpclab/docs/running.md",
                                    "share/doc/rpclab/docs/results/dependability.md"};
  for (const std::string& p : kPrograms) parts.push_back("bin/" + p);
  // The modules rpclab-client and rpclab-server load (src/transport/transport_module.h).
  for (const char* folder : {"sunrpc", "grpc", "xmlrpc", "jsonrpc", "raw"})
    parts.push_back(std::string("libexec/rpclab/transports/rpclab-transport-") + folder + ".so");
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
constexpr const char* kBuiltIn = "sunrpc-udp,sunrpc-tcp,grpc,xmlrpc,jsonrpc";

// The adapters the build built are installed with it (their sources under
// share/rpclab/adapters, their programs under libexec/rpclab/adapters),
// so the installed rpclab runs the same rows as the build's: the quick
// preset's cells, adapters included, are the same list from both, and the
// installed one names no adapter as skipped that the build's runs.
TEST_F(Installed, AdaptersTheBuildBuiltRunFromThePrefix) {
  std::vector<std::string> args = {"dependability", "--preset", "quick", "--dry-run"};
  std::vector<std::string> built_argv = {bin("rpclab")}, installed_argv = {prefix("bin/rpclab")};
  built_argv.insert(built_argv.end(), args.begin(), args.end());
  installed_argv.insert(installed_argv.end(), args.begin(), args.end());
  ProcessResult built = run_program(built_argv);
  ProcessResult installed = run_program(installed_argv);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  EXPECT_EQ(installed.out, built.out);
  // The same adapters skipped, each with its own words: the build's says
  // its build failed (a machine without cargo: tonic), the prefix's that
  // its programs were not installed.
  auto skipped_names = [](const std::string& err) {
    static const std::regex skipped(R"(adapter (\S+) skipped: [^\n]*\n)");
    std::string names;
    for (std::sregex_iterator it(err.begin(), err.end(), skipped), end; it != end; ++it) names += (*it)[1].str() + " ";
    return std::make_pair(names, std::regex_replace(err, skipped, ""));
  };
  EXPECT_EQ(skipped_names(installed.err), skipped_names(built.err))
      << "the installed rpclab skips what the build's runs (or the other way)\n"
      << installed.err << "\n" << built.err;
  size_t adapters = 0;
  for (const char* name : {"thrift", "grpc-go", "tonic"}) {
    EXPECT_TRUE(std::filesystem::exists(prefix(std::string("share/rpclab/adapters/") + name + "/manifest.json")))
        << name;
    if (!std::filesystem::exists(std::string(RPCLAB_BIN_DIR "/adapters/") + name + "/build-failed") &&
        built.out.find(std::string(" ") + name + " ") != std::string::npos)
      ++adapters;
  }
  if (adapters == 0) GTEST_SKIP() << "no adapter built here (see " RPCLAB_BIN_DIR "/adapters/*/build-failed)";
}

size_t quick_cells() {
  ProcessResult built =
      run_program({bin("rpclab"), "dependability", "--preset", "quick", "--transports", kBuiltIn, "--profile",
                   "lossy-lan", "--dry-run"});
  EXPECT_EQ(built.exit_code, 0) << built.err;
  return lines_of(built.out).size();
}

TEST_F(Installed, RpclabDryRunListsTheCellsOfANamedProfile) {
  ProcessResult r = run_program({prefix("bin/rpclab"), "dependability", "--preset", "quick", "--transports",
                                 kBuiltIn, "--profile", "lossy-lan", "--dry-run"});
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

// A page for every program and for every command `rpclab --help` lists,
// and none for a command that is gone: a new command without its
// rpclab_man_page row in dist/CMakeLists.txt fails here.
TEST_F(Installed, EveryProgramAndCommandHasItsManPage) {
  ProcessResult help = run_program({prefix("bin/rpclab"), "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  std::vector<std::string> commands = subcommands_in(help.out);
  for (const char* c : {"dependability", "speed", "report", "compare", "doctor", "clean-net"})
    EXPECT_NE(std::find(commands.begin(), commands.end(), c), commands.end())
        << c << " is not read from rpclab --help:\n" << help.out;
  std::set<std::string> expected(kPrograms.begin(), kPrograms.end());
  for (const std::string& c : commands) expected.insert("rpclab-" + c);
  std::set<std::string> installed;
  for (const auto& entry : std::filesystem::directory_iterator(prefix("share/man/man1")))
    installed.insert(entry.path().stem().string());
  for (const std::string& page : expected)
    EXPECT_EQ(installed.count(page), 1u) << page << "(1) is not installed: add its rpclab_man_page row and "
                                         << "dist/man/" << page << ".h2m";
  for (const std::string& page : installed)
    EXPECT_EQ(expected.count(page), 1u) << page << "(1) is installed, but there is no such program or command";
  EXPECT_EQ(std::set<std::string>(kManPages.begin(), kManPages.end()), expected);
}

// Every page has EXAMPLES and EXIT STATUS (dist/man/PAGE.h2m). Each
// example is a command line of the page's own program (and command), and
// every flag it shows is one that command's --help lists; the exit codes
// include 0 and 2 (every program's bad usage: src/common/cli_support.h).
TEST_F(Installed, EveryManPageHasExamplesOfItsOwnFlagsAndItsExitStatus) {
  for (const std::string& page : kManPages) {
    SCOPED_TRACE(page + "(1)");
    std::string text = slurp(prefix("share/man/man1/" + page + ".1"));
    ASSERT_FALSE(text.empty());
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "\n.SH EXAMPLES\n", text);
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "\n.SH \"EXIT STATUS\"\n", text);
    std::vector<std::string> codes = lines_after(man_section(text, "\"EXIT STATUS\""), ".B");
    for (const std::string& code : codes)
      EXPECT_EQ(code.find_first_not_of("0123456789"), std::string::npos) << "not an exit code: " << code;
    for (const char* code : {"0", "2"})
      EXPECT_NE(std::find(codes.begin(), codes.end(), code), codes.end()) << "exit status " << code << " missing";

    // rpclab-report(1) is `rpclab report`; rpclab-server(1) is rpclab-server.
    bool command_page = std::find(kPrograms.begin(), kPrograms.end(), page) == kPrograms.end();
    std::string program = command_page ? "rpclab" : page;
    std::vector<std::string> examples = lines_after(man_section(text, "EXAMPLES"), ".B");
    EXPECT_FALSE(examples.empty()) << "no example command line (.B) under EXAMPLES";
    for (const std::string& example : examples) {
      SCOPED_TRACE(example);
      std::vector<std::string> words = words_of(example);
      if (!words.empty() && words[0] == "sudo") words.erase(words.begin());
      bool own = !words.empty() && words[0] == program &&
                 (!command_page || (words.size() > 1 && program + "-" + words[1] == page));
      if (!own) {
        ADD_FAILURE() << "an example of another program or command";
        continue;
      }
      std::vector<std::string> help_argv = {prefix("bin/" + program), "--help"};
      ProcessResult help = run_program(help_argv);
      std::vector<std::string> commands = subcommands_in(help.out);
      if (words.size() > 1 && std::find(commands.begin(), commands.end(), words[1]) != commands.end()) {
        help_argv.insert(help_argv.begin() + 1, words[1]);
        help = run_program(help_argv);
      }
      EXPECT_EQ(help.exit_code, 0) << help.err;
      for (const std::string& word : words)
        if (word.rfind("--", 0) == 0) {
          std::string flag = word.substr(0, word.find('='));
          EXPECT_TRUE(help.out.find("  " + flag + " ") != std::string::npos ||
                      help.out.find("," + flag + " ") != std::string::npos ||
                      help.out.find("  " + flag + "\n") != std::string::npos)
              << flag << " is not in `" << words[0] << (help_argv.size() > 2 ? " " + words[1] : "") << " --help`";
        }
    }
  }
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
                       "/docs && " + rpclab + " dependability --preset quick --transports " + std::string(kBuiltIn) + " --profile lossy-lan --dry-run > " +
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
