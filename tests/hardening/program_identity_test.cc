// Every program and subcommand says what it is: --version prints the
// version and the git commit and exits 0 (before any required flag or
// subcommand is asked for), and --help names the program, not the path it
// was started by, with the defaults of its flags.
#include <gtest/gtest.h>

#include <regex>

#include "support/process.h"

namespace rpclab::test {
namespace {

struct Program {
  std::vector<std::string> argv;  // argv[0] is a program of the build
  std::string name;               // what --version and --help call it
};

const std::vector<Program>& programs() {
  static const std::vector<Program> all = {
      {{"rpclab"}, "rpclab"},
      {{"rpclab", "dependability"}, "rpclab"},
      {{"rpclab", "speed"}, "rpclab"},
      {{"rpclab", "doctor"}, "rpclab"},
      {{"rpclab", "clean-net"}, "rpclab"},
      {{"rpclab", "cell"}, "rpclab"},
      {{"rpclab-server"}, "rpclab-server"},
      {{"rpclab-client"}, "rpclab-client"},
      {{"rpclab-linktest"}, "rpclab-linktest"},
      {{"rpclab-linkprobe"}, "rpclab-linkprobe"},
      {{"rpclab-linkprobe", "send"}, "rpclab-linkprobe"},
      {{"rpclab-linkprobe", "reflect"}, "rpclab-linkprobe"},
  };
  return all;
}

ProcessResult run_with(const Program& p, const std::string& flag) {
  std::vector<std::string> argv = p.argv;
  argv[0] = bin(argv[0]);
  argv.push_back(flag);
  return run_program(argv, std::chrono::seconds(20));
}

std::string shown(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

TEST(ProgramIdentity, VersionPrintsTheVersionAndTheCommitAndExitsZero) {
  for (const Program& p : programs()) {
    SCOPED_TRACE(shown(p.argv) + " --version");
    ProcessResult r = run_with(p, "--version");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // e.g. "rpclab-client 0.9.0 (git 80f9a48)", "(git 80f9a48-dirty)", or "(git unknown)" outside a checkout
    std::regex line(p.name + R"( \d+\.\d+\.\d+ \(git [0-9a-z.-]+\)\n)");
    EXPECT_TRUE(std::regex_match(r.out, line)) << "stdout: " << r.out << "stderr: " << r.err;
  }
}

TEST(ProgramIdentity, HelpNamesTheProgramNotItsPath) {
  for (const Program& p : programs()) {
    SCOPED_TRACE(shown(p.argv) + " --help");
    ProcessResult r = run_with(p, "--help");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Usage: " + p.name), std::string::npos) << r.out;
    // Its own path, not any path under the build: a skipped adapter's
    // reason may name its build log (a machine without cargo skips tonic).
    EXPECT_EQ(r.out.find(bin(p.argv[0])), std::string::npos) << "the path it was started by: " << r.out;
  }
}

// The link programs' flags all have defaults the code applies; --help
// shows them, as the other programs' help texts do.
TEST(ProgramIdentity, TheLinkProgramsShowTheirDefaultsInHelp) {
  struct Expect {
    Program program;
    std::vector<std::string> defaults;  // "--flag TYPE=VALUE" as CLI11 prints it
  };
  for (const Expect& e : std::vector<Expect>{
           {{{"rpclab-linktest"}, "rpclab-linktest"}, {"=20000", "=10000", "=64", "=500", "=both", "=auto", "=300"}},
           {{{"rpclab-linkprobe", "send"}, "rpclab-linkprobe"}, {"=20000", "=10000", "=64", "=500"}},
       }) {
    ProcessResult r = run_with(e.program, "--help");
    for (const std::string& d : e.defaults)
      EXPECT_NE(r.out.find(d), std::string::npos) << shown(e.program.argv) << " --help lacks " << d << ":\n" << r.out;
  }
}

}  // namespace
}  // namespace rpclab::test
