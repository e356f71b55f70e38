// Every bad input, one table: for each flag of the three programs and each
// field of a fault profile, a bad value, the exit code docs/running.md
// gives for it, the words that name the problem and the words that say
// how to fix it. Nothing may run: no results folder is made.
//
// Missing privileges run as user nobody (setpriv); a missing fault backend
// is tried end to end where this kernel lacks it. A backend that this
// machine has cannot be made missing from outside, so choose_backend's
// messages for missing netem, user-mode-linux, nftables and root are also
// checked on made-up machines in tests/netem/backend_choice_test.cc.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/harness_e2e_util.h"
#include "netem/capabilities.h"
#include "netem/topology.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

constexpr int kUsage = 2, kFailed = 1, kSetup = 3;
// Runs what follows as user nobody, with no supplementary groups.
const std::vector<std::string> kAsNobody = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};

struct BadInput {
  std::vector<std::string> argv;  // argv[0] is a program of the build; {dir} and {port} are filled in
  int exit_code;
  std::string problem;  // words naming what is wrong
  std::string fix;      // words saying what would be right, or what to do
  bool as_nobody = false;
};

std::vector<std::string> dependability(std::vector<std::string> args) {
  args.insert(args.begin(), {"rpclab", "dependability"});
  return args;
}

std::vector<std::string> speed(std::vector<std::string> args) {
  args.insert(args.begin(), {"rpclab", "speed"});
  return args;
}

// A profile file holding `line`, given to a dry run.
std::vector<std::string> profile(const std::string& line) {
  std::string name = "p" + std::to_string(std::hash<std::string>{}(line));
  return {"rpclab", "dependability", "--dry-run", "--profile", "{dir}/" + name, "#profile " + line};
}

std::vector<std::string> client(std::vector<std::string> args) {
  std::vector<std::string> argv = {"rpclab-client", "--transport", "raw-udp", "--server", "127.0.0.1:9"};
  for (size_t i = 0; i < args.size(); i += 2) {  // a flag given here replaces the default one
    auto same = std::find(argv.begin(), argv.end(), args[i]);
    if (same != argv.end() && i + 1 < args.size()) *(same + 1) = args[i + 1];
    else argv.insert(argv.end(), args.begin() + i, args.begin() + std::min(i + 2, args.size()));
  }
  return argv;
}

std::vector<std::string> server(std::vector<std::string> args) {
  args.insert(args.begin(), "rpclab-server");
  return args;
}

const std::vector<BadInput>& table() {
  static const std::vector<BadInput> rows = {
      // rpclab dependability
      {dependability({"--preset", "levy2024"}), kUsage, "--preset", "levy1989"},
      {dependability({"--tables", "nosuch"}), kUsage, "--tables", "its tables: load, faults"},
      {dependability({"--transports", "carrier-pigeon"}), kUsage, "carrier-pigeon", "known: sunrpc-udp"},
      {dependability({"--loads", "-1"}), kUsage, "--loads", "0 to 256"},
      {dependability({"--loads", "257"}), kUsage, "--loads", "0 to 256"},
      {dependability({"--loss", "150"}), kUsage, "--loss", "0 to 100"},
      {dependability({"--loss", "-1"}), kUsage, "--loss", "0 to 100"},
      {dependability({"--dup", "101"}), kUsage, "--dup", "0 to 100"},
      {dependability({"--direction", "sideways"}), kUsage, "--direction", "to-server,to-client,both"},
      {dependability({"--profile", "no-such-profile"}), kUsage, "no-such-profile", "lossy-lan"},
      {dependability({"--retry-timeouts", "soon"}), kUsage, "--retry-timeouts", "'default' or milliseconds"},
      {dependability({"--retry-timeouts", "0"}), kUsage, "--retry-timeouts", "1..3600000"},
      {dependability({"--drc", "-1"}), kUsage, "--drc", "0 to 1048576"},
      {dependability({"--drain", "maybe"}), kUsage, "--drain", "off,on"},
      {dependability({"--clients", "0"}), kUsage, "--clients", "1 to 256"},
      {dependability({"--clients", "257"}), kUsage, "--clients", "1 to 256"},
      {dependability({"--connect", "sometimes"}), kUsage, "--connect", "persistent,per-call"},
      {dependability({"--calls", "0"}), kUsage, "--calls", "1 to 4294967296"},
      {dependability({"--calls", "-5"}), kUsage, "--calls", "1 to 4294967296"},
      {dependability({"--calls", "many"}), kUsage, "--calls", "many"},
      {dependability({"--fault-calls", "0"}), kUsage, "--fault-calls", "1 to 4294967296"},
      {dependability({"--timeout", "0"}), kUsage, "--timeout", "1 to 3600000"},
      {dependability({"--topology", "mars"}), kUsage, "--topology", "loopback,two-host"},
      {dependability({"--faults-backend", "pigeon"}), kUsage, "--faults-backend", "auto,netem,uml-netem,nftables"},
      {dependability({"--cell-time-limit", "0"}), kUsage, "--cell-time-limit", "10 to 86400"},
      {dependability({"--resume", "{dir}/missing"}), kUsage, "--resume", "{dir}/missing"},
      {dependability({"--frobnicate"}), kUsage, "--frobnicate", "--help"},
      {dependability({"--out", "/proc/no/such", "--preset", "quick", "--tables", "clean"}), kSetup,
       "cannot create the results folder /proc/no/such", "choose another with --out"},
      {{"rpclab", "frobnicate"}, kUsage, "unknown command 'frobnicate'", "dependability, speed, doctor"},
      // rpclab speed
      {speed({"--preset", "fast"}), kUsage, "--preset", "levy1989,quick"},
      {speed({"--sizes", "16777217"}), kUsage, "--sizes", "0 to 16777216"},
      {speed({"--sizes", "-1"}), kUsage, "--sizes", "0 to 16777216"},
      {speed({"--clients", "65"}), kUsage, "--clients", "1 to 64"},
      {speed({"--trials", "0"}), kUsage, "--trials", "1 to 1000"},
      {speed({"--calls-per-trial", "0"}), kUsage, "--calls-per-trial", "1 to 16777216"},
      {speed({"--warmup", "-1"}), kUsage, "--warmup", "1 to 16777216"},
      {speed({"--timeout", "0"}), kUsage, "--timeout", "1 to 3600000"},
      {speed({"--udp-bufsize", "100"}), kUsage, "--udp-bufsize", "1024 to 65536"},
      {speed({"--topologies", "mars"}), kUsage, "--topologies", "loopback,two-host"},
      {speed({"--connect", "x"}), kUsage, "--connect", "persistent,per-call"},
      {speed({"--transports", "pigeon"}), kUsage, "pigeon", "known: sunrpc-udp"},
      // fault profile fields (a profile file, read by a dry run)
      {profile("loss=150"), kUsage, "loss = 150", "between 0 and 100"},
      {profile("loss_corr=101"), kUsage, "loss_corr = 101", "between 0 and 100"},
      {profile("ge_p=-1"), kUsage, "ge_p = -1", "between 0 and 100"},
      {profile("ge_r=200"), kUsage, "ge_r = 200", "between 0 and 100"},
      {profile("ge_1h=101"), kUsage, "ge_1h = 101", "between 0 and 100"},
      {profile("ge_1k=-5"), kUsage, "ge_1k = -5", "between 0 and 100"},
      {profile("ge_r=5"), kUsage, "without ge_p", "needs ge_p"},
      {profile("dup=101"), kUsage, "dup = 101", "between 0 and 100"},
      {profile("delay_ms=-1"), kUsage, "delay_ms = -1", "between 0 and 60000"},
      {profile("delay_ms=99999999"), kUsage, "delay_ms = 99999999", "between 0 and 60000"},
      {profile("jitter_ms=5"), kUsage, "jitter_ms = 5", "at most delay_ms"},
      {profile("reorder=101"), kUsage, "reorder = 101", "between 0 and 100"},
      {profile("reorder=5"), kUsage, "reorder = 5", "needs delay_ms > 0"},
      {profile("corrupt=101"), kUsage, "corrupt = 101", "between 0 and 100"},
      {profile("rate=fast"), kUsage, "rate = fast", "e.g. 100mbit"},
      {profile("rate=-1mbit"), kUsage, "rate = -1mbit", "e.g. 100mbit"},
      {profile("direction=sideways"), kUsage, "direction = \"sideways\"", "to-server, to-client or both"},
      {profile("seed=-1"), kUsage, "seed = \"-1\"", "whole number from 0"},
      {profile("seed=abc"), kUsage, "seed = \"abc\"", "whole number from 0"},
      {profile("loss="), kUsage, "loss = \"\"", "not a number"},
      {profile("just words"), kUsage, "\"just words\"", "expected KEY=VALUE"},
      {profile("colour=red"), kUsage, "unknown key \"colour\"", "known: loss"},
      {profile("loss=1\nloss=2"), kUsage, "loss is given twice", "keep one"},
      {profile("loss=5\nge_p=1"), kUsage, "loss = 5 and ge_p = 1", "not both"},
      // timed events in a profile
      {profile("event = meteor at=1s"), kUsage, "event \"meteor\": unknown kind", "known: partition, reset"},
      {profile("event = partition at=1s"), kUsage, "event partition", "needs for=DURATION"},
      {profile("event = partition at=2000 for=1s"), kUsage, "at = \"2000\"", "a unit, ms or s"},
      {profile("event = partition at=-1s for=1s"), kUsage, "at = -1s", "must not be negative"},
      {profile("event = partition at=1s for=1s colour=red"), kUsage, "\"colour\"", "known: at, for, every, jitter"},
      {profile("event = partition at=0s for=6s every=5s"), kUsage, "for = 6000ms", "not shorter than every = 5000ms"},
      {profile("event = partition at=1s for=2s\nevent = partition at=2s for=1s"), kUsage, "can overlap", "move one"},
      {profile("event = server-crash at=1s for=1s\nevent = server-stall at=1500ms for=1s"), kUsage,
       "both act on the server", "move one"},
      // valid, and not run by the cell runner yet: refused rather than ignored
      {profile("event = partition at=1s for=1s"), kUsage, "holds timed events", "does not run events yet"},
      // rpclab-server
      {server({"--transport", "carrier-pigeon"}), kUsage, "--transport", "sunrpc-udp"},
      {server({}), kUsage, "--transport", "--help"},
      {server({"--transport", "raw-tcp", "--listen", "localhost"}), kUsage, "--listen", "e.g. 127.0.0.1:7000"},
      {server({"--transport", "raw-tcp", "--listen", "127.0.0.1:70000"}), kUsage, "--listen", "0 to 65535"},
      {server({"--transport", "raw-tcp", "--frobnicate"}), kUsage, "--frobnicate", "--help"},
      {server({"--transport", "sunrpc-udp", "--udp-bufsize", "100"}), kUsage, "--udp-bufsize", "1024 to 65536"},
      {server({"--transport", "sunrpc-udp", "--drc", "-1"}), kUsage, "--drc", "0 to 1048576"},
      {server({"--transport", "raw-tcp", "--ledger-max-mb", "0"}), kUsage, "--ledger-max-mb", "1 to 65536"},
      {server({"--transport", "raw-tcp", "--ledger", "{dir}/no/such/ledger"}), kUsage, "--ledger",
       "create it, or choose a writable place"},
      {server({"--transport", "raw-tcp", "--ledger", "{dir}"}), kUsage, "is a folder", "give a file name"},
      {server({"--transport", "raw-tcp", "--ready-file", "/proc/no/such"}), kUsage, "--ready-file", "writable"},
      {server({"--transport", "raw-tcp", "--listen", "127.0.0.1:{port}"}), kSetup, "in use", "127.0.0.1:{port}"},
      {server({"--transport", "raw-tcp", "--listen", "198.51.100.7:7000"}), kSetup, "198.51.100.7",
       "no interface here has that address"},
      {server({"--transport", "raw-tcp", "--listen", "127.0.0.1:80"}), kSetup, "127.0.0.1:80",
       "ports below 1024 need root", true},
      // rpclab-client
      {client({"--transport", "carrier-pigeon"}), kUsage, "--transport", "sunrpc-udp"},
      {client({"--server", "127.0.0.1"}), kUsage, "--server", "e.g. 127.0.0.1:7000"},
      {client({"--server", "127.0.0.1:x"}), kUsage, "--server", "0 to 65535"},
      {client({"--server", ":7000"}), kUsage, "--server", "HOST:PORT"},
      {client({"--server", "no.such.host.invalid:9"}), kSetup, "no.such.host.invalid", "give an IPv4 address"},
      {client({"--calls", "0"}), kUsage, "--calls", "1 to 4294967296"},
      {client({"--calls", "-5"}), kUsage, "--calls", "1 to 4294967296"},
      {client({"--op", "dance"}), kUsage, "--op", "next,echo,null"},
      {client({"--connect", "sometimes"}), kUsage, "--connect", "persistent,per-call"},
      {client({"--op", "echo", "--size", "65499"}), kUsage, "--size", "65498"},
      {client({"--transport", "sunrpc-udp", "--op", "echo", "--size", "8757"}), kUsage, "--size", "--udp-bufsize"},
      {client({"--size", "16777217"}), kUsage, "--size", "0 to 16777216"},
      {client({"--timeout", "0"}), kUsage, "--timeout", "1 to"},
      {client({"--retry-timeout", "0"}), kUsage, "--retry-timeout", "1 to"},
      {client({"--udp-bufsize", "100"}), kUsage, "--udp-bufsize", "1024 to 65536"},
      {client({"--record", "{dir}/no/such/record"}), kUsage, "--record", "create it, or choose a writable place"},
      {client({"--frobnicate"}), kUsage, "--frobnicate", "--help"},
      {client({"--retry-policy", "sometimes"}), kUsage, "--retry-policy", "none,library,app"},
      {client({"--retry-policy", "library"}), kUsage, "--retry-policy library: raw-udp", "use none or app"},
      {client({"--transport", "sunrpc-udp", "--retry-policy", "library"}), kUsage, "always on", "use none or app"},
      {client({"--app-retries", "0"}), kUsage, "--app-retries", "1 to 1000"},
      {client({"--app-backoff", "-1"}), kUsage, "--app-backoff", "0 to 3600000"},
  };
  return rows;
}

std::string fill(std::string s, const std::string& dir, uint16_t port) {
  for (auto [key, value] : {std::pair<std::string, std::string>{"{dir}", dir}, {"{port}", std::to_string(port)}})
    for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), value);
  return s;
}

std::string shown(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

TEST(BadInput, EveryRowExitsWithItsCodeNamingTheProblemAndTheFix) {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0777);  // rows run as nobody write nothing, but may look
  ServerProcess busy("raw-tcp");      // holds the port of the "in use" row
  int checked = 0, skipped = 0;
  for (const BadInput& row : table()) {
    std::vector<std::string> argv;
    std::string profile_line;
    for (const std::string& a : row.argv) {
      if (a.rfind("#profile ", 0) == 0) profile_line = a.substr(9);
      else argv.push_back(fill(a, dir.path(), busy.port()));
    }
    argv[0] = bin(argv[0]);
    if (!profile_line.empty()) {
      std::ofstream(argv[4]) << profile_line << "\n";
      argv.insert(argv.end(), {"--out", dir.file("never")});
    }
    if (row.as_nobody) {
      if (!is_root()) {
        std::printf("[ SKIPPED  ] %s: needs root to drop to user nobody\n", shown(row.argv).c_str());
        ++skipped;
        continue;
      }
      argv.insert(argv.begin(), kAsNobody.begin(), kAsNobody.end());
    }
    SCOPED_TRACE(shown(row.argv) + (profile_line.empty() ? "" : " holding: " + profile_line));
    ProcessResult r = run_program(argv, std::chrono::seconds(20));
    EXPECT_EQ(r.exit_code, row.exit_code) << r.err;
    EXPECT_NE(r.err.find(fill(row.problem, dir.path(), busy.port())), std::string::npos)
        << "the message does not name the problem (" << row.problem << "): " << r.err;
    EXPECT_NE(r.err.find(fill(row.fix, dir.path(), busy.port())), std::string::npos)
        << "the message does not say the fix (" << row.fix << "): " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("never"))) << "a bad input made a results folder";
    ++checked;
  }
  EXPECT_TRUE(busy.running());
  std::printf("[ TABLE    ] %d bad inputs checked, %d skipped\n", checked, skipped);
}

// Missing privileges: as nobody, the harness runs what it can and says
// what it skipped; clean-net refuses and says to use sudo.
TEST(BadInput, WithoutRootTheHarnessSaysWhatNeedsRoot) {
  if (!is_root()) GTEST_SKIP() << "needs root to drop to user nobody and to make a namespace to clean";
  TempDir dir;
  ::chmod(dir.path().c_str(), 0777);
  auto as_nobody = [&](std::vector<std::string> args) {
    args.insert(args.begin(), kAsNobody.begin(), kAsNobody.end());
    return run_program(args, std::chrono::seconds(60));
  };
  ProcessResult skip = as_nobody({bin("rpclab"), "dependability", "--preset", "quick", "--tables", "udp-dup",
                                  "--fault-calls", "10", "--out", dir.file("run")});
  EXPECT_EQ(skip.exit_code, 0) << skip.err;
  EXPECT_NE(skip.err.find("not root"), std::string::npos) << skip.err;
  for (const auto& rec : read_jsonl(dir.file("run/results.jsonl"))) {
    EXPECT_EQ(rec["status"], "skipped");
    EXPECT_NE(rec["reason"].get<std::string>().find("need root"), std::string::npos) << rec["reason"];
    EXPECT_NE(rec["reason"].get<std::string>().find("run as root"), std::string::npos) << rec["reason"];
  }

  std::string ns = std::string(netem::kNamespacePrefix) + std::to_string(::getpid()) + "-badinput";
  ASSERT_EQ(run_program({"ip", "netns", "add", ns}).exit_code, 0);
  ProcessResult clean = as_nobody({bin("rpclab"), "clean-net"});
  run_program({"ip", "netns", "delete", ns});
  EXPECT_EQ(clean.exit_code, kSetup) << clean.err;
  EXPECT_NE(clean.err.find("needs root"), std::string::npos) << clean.err;
  EXPECT_NE(clean.err.find("sudo make clean-net"), std::string::npos) << clean.err;
}

// A backend this kernel lacks, asked for by name: the cell fails (exit 1)
// with the reason and the way out; the run does not pretend.
TEST(BadInput, AMissingFaultBackendFailsItsCellSayingWhatToUseInstead) {
  if (!is_root()) GTEST_SKIP() << "needs root: fault cells need network namespaces";
  netem::Capabilities caps = netem::probe_capabilities();
  if (caps.host_netem) GTEST_SKIP() << "this kernel has sch_netem, so the netem backend is not missing here";
  TempDir dir;
  ProcessResult r = run_program({bin("rpclab"), "dependability", "--preset", "quick", "--tables", "udp-dup",
                                 "--transports", "sunrpc-udp", "--drc", "0", "--fault-calls", "10",
                                 "--faults-backend", "netem", "--out", dir.file("run")},
                                std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, kFailed) << r.err;
  auto records = read_jsonl(dir.file("run/results.jsonl"));
  ASSERT_FALSE(records.empty()) << r.err;
  for (const auto& rec : records) {
    EXPECT_EQ(rec["status"], "failed");
    std::string reason = rec["reason"];
    EXPECT_NE(reason.find("no sch_netem"), std::string::npos) << reason;
    EXPECT_NE(reason.find("use uml-netem"), std::string::npos) << reason;
  }
}

}  // namespace
}  // namespace rpclab::test
