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
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/dependability/matrix.h"
#include "harness/harness_e2e_util.h"
#include "harness/report/run_compare.h"
#include "harness/speed/speed_matrix.h"
#include "netem/topology/capabilities.h"
#include "netem/topology/topology.h"
#include "support/help_text.h"
#include "support/nobody_programs.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "transport/transport.h"

namespace rpclab::test {
namespace {

constexpr int kUsage = 2, kSetup = 3;

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

// A profile file holding `line`, given to a dry run with `flags`.
std::vector<std::string> profile(const std::string& line, const std::vector<std::string>& flags = {}) {
  std::string name = "p" + std::to_string(std::hash<std::string>{}(line));
  std::vector<std::string> argv = {"rpclab", "dependability", "--dry-run", "--profile", "{dir}/" + name};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("#profile " + line);
  return argv;
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

std::vector<std::string> linkprobe(std::vector<std::string> args) {
  args.insert(args.begin(), "rpclab-linkprobe");
  return args;
}

std::vector<std::string> linktest(std::vector<std::string> args) {
  args.insert(args.begin(), "rpclab-linktest");
  return args;
}

const std::vector<BadInput>& table() {
  static const std::vector<BadInput> rows = {
      // rpclab dependability
      {dependability({"--preset", "levy2024"}), kUsage, "--preset", "levy1989"},
      {dependability({"--tables", "nosuch"}), kUsage, "--tables: 'nosuch'", "its tables: load, faults"},
      {dependability({"--tables", "load,nosuch"}), kUsage, "--tables: 'nosuch'", "its tables: load, faults"},
      {dependability({"--transports", "carrier-pigeon"}), kUsage, "carrier-pigeon", "known: sunrpc-udp"},
      {dependability({"--loads", "-1"}), kUsage, "--loads", "0 to 256"},
      {dependability({"--loads", "257"}), kUsage, "--loads", "0 to 256"},
      {dependability({"--loss", "150"}), kUsage, "--loss", "0 to 100"},
      {dependability({"--loss", "-1"}), kUsage, "--loss", "0 to 100"},
      {dependability({"--loss", "abc"}), kUsage, "--loss: 'abc' is not a number", "0 to 100"},
      {dependability({"--loads", "1.5"}), kUsage, "--loads: '1.5' is not a whole number", "0 to 256"},
      {dependability({"--dup", "101"}), kUsage, "--dup", "0 to 100"},
      {dependability({"--direction", "sideways"}), kUsage, "--direction", "to-server,to-client,both"},
      {dependability({"--profile", "no-such-profile"}), kUsage, "no-such-profile", "lossy-lan"},
      {dependability({"--retry-timeouts", "soon"}), kUsage, "--retry-timeouts", "'default' or a whole number"},
      {dependability({"--retry-timeouts", "0"}), kUsage, "--retry-timeouts", "1 to 3600000"},
      {dependability({"--drc", "-1"}), kUsage, "--drc", "0 to 1048576"},
      {dependability({"--drain", "maybe"}), kUsage, "--drain", "off,on"},
      {dependability({"--clients", "0"}), kUsage, "--clients", "1 to 256"},
      {dependability({"--clients", "257"}), kUsage, "--clients", "1 to 256"},
      {dependability({"--connect", "sometimes"}), kUsage, "--connect", "persistent,per-call"},
      {dependability({"--calls", "0"}), kUsage, "--calls", "1 to 4294967296"},
      {dependability({"--calls", "-5"}), kUsage, "--calls", "1 to 4294967296"},
      {dependability({"--calls", "many"}), kUsage, "--calls: 'many' is not a number", "1 to 4294967296"},
      {dependability({"--preset", "quick", "--tables", "clean", "--calls", "5", "--clients", "8", "--dry-run"}), kUsage,
       "5 calls", "--calls 8 or more"},
      {dependability({"--preset", "quick", "--tables", "udp-dup", "--fault-calls", "2", "--clients", "3",
                      "--dry-run"}), kUsage, "2 calls", "--fault-calls 3 or more"},
      {dependability({"--faults-backend", "nftables", "--profile", "wan", "--dry-run"}), kUsage,
       "nftables cannot apply delay", "use netem or uml-netem"},
      {dependability({"--faults-backend", "nftables", "--profile", "wan", "--preset", "quick", "--calls", "10",
                      "--out", "{dir}/never"}), kUsage, "nftables cannot apply delay",
       "use netem or uml-netem"},
      {dependability({"--fault-calls", "0"}), kUsage, "--fault-calls", "1 to 4294967296"},
      {dependability({"--trials", "0"}), kUsage, "--trials", "1 to 1000"},
      {dependability({"--trials", "-3"}), kUsage, "--trials", "1 to 1000"},
      {dependability({"--trials", "two"}), kUsage, "--trials: 'two' is not a number", "1 to 1000"},
      {dependability({"--shuffle-seed", "-1"}), kUsage, "--shuffle-seed", "0 to 4294967295"},
      {dependability({"--timeout", "0"}), kUsage, "--timeout", "1 to 3600000"},
      {dependability({"--topology", "mars"}), kUsage, "--topology", "loopback,two-host"},
      {dependability({"--faults-backend", "pigeon"}), kUsage, "--faults-backend", "auto,netem,uml-netem,nftables"},
      {dependability({"--cell-time-limit", "0"}), kUsage, "--cell-time-limit", "10 to 86400"},
      {dependability({"--resume", "{dir}/missing"}), kUsage, "--resume", "{dir}/missing"},
      {dependability({"--frobnicate"}), kUsage, "--frobnicate", "--help"},
      {dependability({"--retry-policy", "sometimes"}), kUsage, "--retry-policy: 'sometimes'", "none, library or app:K"},
      {dependability({"--retry-policy", "app"}), kUsage, "--retry-policy: 'app'", "app:K (K retries, 1..1000)"},
      {dependability({"--retry-policy", "app:0"}), kUsage, "'app:0'", "number of retries, 1..1000"},
      {dependability({"--at-most-once", "yes"}), kUsage, "--at-most-once", "off,on"},
      {dependability({"--duration", "0"}), kUsage, "--duration", "0.1 to 3600"},
      {dependability({"--out", "/proc/no/such", "--preset", "quick", "--tables", "clean"}), kSetup,
       "cannot create the results folder /proc/no/such", "choose another with --out"},
      // a run folder holds one run ({dir}/a-run holds one, {dir}/not-empty someone's file)
      {dependability({"--out", "{dir}/a-run"}), kUsage, "--out {dir}/a-run: this folder already holds a run",
       "or continue that run with --resume {dir}/a-run"},
      {dependability({"--out", "{dir}/not-empty"}), kUsage, "this folder is not empty (it holds notes.txt)",
       "Give a new folder with --out"},
      {dependability({"--resume", "{dir}/not-empty"}), kUsage, "--resume {dir}/not-empty: this folder holds no run",
       "start a new run with --out"},
      {dependability({"--out", "{dir}/never", "--resume", "{dir}/a-run"}), kUsage, "name two folders", "drop --out"},
      // --dry-run makes the folders' checks the run makes: it says no where the run would
      {dependability({"--preset", "quick", "--resume", "{dir}/a-run", "--dry-run"}), kUsage,
       "--resume: {dir}/a-run holds a run with other cells", "resume it with its own command"},
      {dependability({"--resume", "{dir}/not-empty", "--dry-run"}), kUsage, "this folder holds no run",
       "start a new run with --out"},
      {dependability({"--out", "{dir}/a-run", "--dry-run"}), kUsage, "this folder already holds a run",
       "--resume {dir}/a-run"},
      {{"rpclab", "frobnicate"}, kUsage, "unknown command 'frobnicate'", "(commands: dependability, speed, nfs, report, compare, adapter, time-constants, presets, doctor, clean-net)"},
      // a slip of the keyboard gets the nearest name (issue 39); bare rpclab lists its commands
      {{"rpclab", "compair", "a", "b"}, kUsage, "unknown command 'compair'; did you mean compare?", "commands: "},
      {dependability({"--tranports", "grpc"}), kUsage, "--tranports: did you mean --transports?", "--help"},
      {speed({"--size=12"}), kUsage, "--size: did you mean --sizes?", "--help"},
      {{"rpclab", "compare", "{dir}/a-run", "{dir}/a-run", "--al"}, kUsage, "--al: did you mean --all?", "--help"},
      {{"rpclab"}, kUsage, "give a command (rpclab COMMAND --help for its options)",
       "\n  compare        two run folders"},
      {{"rpclab", "report", "{dir}/no-such-run"}, kUsage, "{dir}/no-such-run does not exist", "e.g. results/latest"},
      {{"rpclab", "compare", "{dir}/no-such-run", "{dir}/a-run"}, kUsage, "{dir}/no-such-run does not exist",
       "give a run folder"},
      {{"rpclab", "--bogus"}, kUsage, "unknown option '--bogus'", "a command comes first"},
      // a flag's path is checked before anything runs: exit 2 (docs/running.md, "Files the programs write")
      {{"rpclab", "compare", "{dir}/a-run", "{dir}/a-run", "--html", "/nonexistent/x.html"}, kUsage, "--html",
       "/nonexistent"},
      {{"rpclab", "report"}, kUsage, "run is required", "--help"},
      {{"rpclab", "report", "{dir}/a-run"}, kUsage, "{dir}/a-run is not a run folder", "e.g. results/latest"},
      // rpclab adapter (docs/adapters.md)
      {{"rpclab", "adapter", "frob"}, kUsage, "action", "check,build,list"},
      {{"rpclab", "adapter", "check"}, kUsage, "which adapter?", "rpclab adapter list names them"},
      {{"rpclab", "adapter", "check", "no-such-stack"}, kUsage, "no adapter named 'no-such-stack'", "thrift"},
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
      {speed({"--sizes", "big"}), kUsage, "--sizes: 'big' is not a number", "0 to 16777216"},
      {speed({"--out", "{dir}/a-run"}), kUsage, "--out {dir}/a-run: this folder already holds a run",
       "or continue that run with --resume {dir}/a-run"},
      {speed({"--resume", "{dir}/not-empty"}), kUsage, "--resume {dir}/not-empty: this folder holds no run",
       "start a new run with --out"},
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
      // events a cell cannot hold: longer than the cell, a cell longer than
      // its time limit, an event the named backend cannot apply
      {profile("event = partition at=1s for=2s", {"--duration", "2"}), kUsage,
       "'partition at 1000ms for 2000ms' ends 3000 ms after the clients start", "give --duration 3 or more"},
      {profile("event = server-stall at=9s for=1s jitter=500ms"), kUsage, "ends 10500 ms", "--duration 11 or more"},
      {profile("event = partition at=1s for=1s", {"--duration", "20", "--cell-time-limit", "10"}), kUsage,
       "lasts 20.0 s, and --cell-time-limit stops a cell's clients at 10 s", "a longer --cell-time-limit"},
      {profile("event = reset at=1s", {"--faults-backend", "netem"}), kUsage, "netem cannot apply reset without for=",
       "use nftables"},
      // rpclab-server
      {server({"--transport", "carrier-pigeon"}), kUsage, "--transport", "sunrpc-udp"},
      {server({}), kUsage, "--transport", "--help"},
      {server({"--transport", "raw-tcp", "--listen", "localhost"}), kUsage, "--listen", "e.g. 127.0.0.1:7000"},
      {server({"--transport", "raw-tcp", "--listen", "127.0.0.1:70000"}), kUsage, "--listen", "0 to 65535"},
      {server({"--transport", "raw-tcp", "--listen", "127.0.0.1:"}), kUsage, "rpclab-server: --listen", "HOST:PORT"},
      {server({"--transport", "raw-tcp", "--listen", "127.0.0.1: 7000"}), kUsage, "--listen", "0 to 65535"},
      {server({"--transport", "raw-tcp", "--frobnicate"}), kUsage, "--frobnicate", "--help"},
      {server({"--transport", "sunrpc-udp", "--udp-bufsize", "100"}), kUsage, "--udp-bufsize", "1024 to 65536"},
      {server({"--transport", "sunrpc-udp", "--drc", "-1"}), kUsage, "--drc", "0 to 1048576"},
      {server({"--transport", "raw-tcp", "--ledger-max-mb", "0"}), kUsage, "--ledger-max-mb", "1 to 65536"},
      {server({"--transport", "raw-tcp", "--ledger", "{dir}/no/such/ledger"}), kUsage, "--ledger",
       "create it, or choose a writable place"},
      {server({"--transport", "raw-tcp", "--ledger", "{dir}"}), kUsage, "is a folder", "give a file name"},
      {server({"--transport", "raw-tcp", "--ready-file", "/proc/no/such"}), kUsage, "--ready-file", "writable"},
      {server({"--transport", "raw-tcp", "--journal-max-mb", "0"}), kUsage, "--journal-max-mb", "1 to 65536"},
      {server({"--transport", "raw-tcp", "--journal", "{dir}/no/such/journal"}), kUsage, "--journal",
       "create it, or choose a writable place"},
      {server({"--transport", "raw-tcp", "--journal", "{dir}"}), kUsage, "is a folder", "give a file name"},
      {server({"--transport", "raw-tcp", "--journal", "-"}), kUsage, "cannot hold a journal",
       "give the path of a regular file"},
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
      {client({"--server", "127.0.0.1:99999"}), kUsage, "rpclab-client: --server", "0 to 65535"},
      {client({"--server", "127.0.0.1:+7000"}), kUsage, "--server", "0 to 65535"},
      {client({"--server", "127.0.0.1:9,127.0.0.1"}), kUsage, "--server", "e.g. 127.0.0.1:7000"},
      {client({"--transport", "grpc", "--server", "127.0.0.1:9,"}), kUsage, "--server", "HOST:PORT"},
      {client({"--transport", "sunrpc-tcp", "--server", "127.0.0.1:9,127.0.0.1:10"}), kUsage,
       "--server: sunrpc-tcp takes one HOST:PORT", "only grpc balances over several"},
      {client({"--calls", "abc"}), kUsage, "--calls: 'abc' is not a number", "1 to 4294967296"},
      {client({"--server", "no.such.host.invalid:9"}), kSetup, "no.such.host.invalid", "give an IPv4 address"},
      {client({"--calls", "0"}), kUsage, "--calls", "1 to 4294967296"},
      {client({"--calls", "-5"}), kUsage, "--calls", "1 to 4294967296"},
      {client({"--op", "dance"}), kUsage, "--op", "null | next | echo | is-prime"},
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
      {client({"--duration", "0"}), kUsage, "--duration", "1 to 86400000"},
      {client({"--app-backoff", "-1"}), kUsage, "--app-backoff", "0 to 3600000"},
      // rpclab-linkprobe and rpclab-linktest: the same address parser, ranges and prefix as the others
      {linkprobe({"send", "--to", "127.0.0.1:99999"}), kUsage, "rpclab-linkprobe: --to", "0 to 65535"},
      {linkprobe({"send", "--to", "127.0.0.1:x"}), kUsage, "rpclab-linkprobe: --to", "0 to 65535"},
      {linkprobe({"send", "--to", "127.0.0.1"}), kUsage, "rpclab-linkprobe: --to", "e.g. 127.0.0.1:7000"},
      {linkprobe({"send", "--to", "127.0.0.1:"}), kUsage, "rpclab-linkprobe: --to", "HOST:PORT"},
      {linkprobe({"reflect", "--listen", ":9000"}), kUsage, "rpclab-linkprobe: --listen", "HOST:PORT"},
      {linkprobe({"send", "--to", "127.0.0.1:9", "--count", "0"}), kUsage, "rpclab-linkprobe: --count",
       "1 to 100000000"},
      {linkprobe({"send", "--to", "127.0.0.1:9", "--pps", "fast"}), kUsage, "--pps: 'fast' is not a number",
       "1 to 10000000"},
      {linkprobe({"send", "--to", "127.0.0.1:9", "--frobnicate"}), kUsage, "rpclab-linkprobe: ", "--help"},
      {linktest({"--count", "0"}), kUsage, "rpclab-linktest: --count", "1 to 10000000"},
      {linktest({"--loss", "abc"}), kUsage, "rpclab-linktest: --loss: 'abc' is not a number", "0 to 100"},
      {linktest({"--faults-backend", "pigeon"}), kUsage, "rpclab-linktest: --faults-backend",
       "auto,netem,uml-netem,nftables"},
      {linktest({"--frobnicate"}), kUsage, "rpclab-linktest: ", "--help"},
  };
  return rows;
}

std::string fill(std::string s, const std::string& dir, uint16_t port) {
  for (auto [key, value] : {std::pair<std::string, std::string>{"{dir}", dir}, {"{port}", std::to_string(port)}})
    for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), value);
  return s;
}

std::vector<std::string> with_build_path(std::vector<std::string> argv) {
  argv[0] = bin(argv[0]);
  return argv;
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
  NobodyPrograms nobody({"rpclab-server"});
  std::filesystem::create_directory(dir.file("a-run"));
  std::ofstream(dir.file("a-run/metadata.json")) << "{}\n";
  std::filesystem::create_directory(dir.file("not-empty"));
  std::ofstream(dir.file("not-empty/notes.txt")) << "someone's notes\n";
  int checked = 0, skipped = 0;
  for (const BadInput& row : table()) {
    std::vector<std::string> argv;
    std::string profile_line;
    for (const std::string& a : row.argv) {
      if (a.rfind("#profile ", 0) == 0) profile_line = a.substr(9);
      else argv.push_back(fill(a, dir.path(), busy.port()));
    }
    if (!profile_line.empty()) {
      std::ofstream(argv[4]) << profile_line << "\n";
      argv.insert(argv.end(), {"--out", dir.file("never")});
    }
    if (row.as_nobody && !nobody.why_not().empty()) {
      std::printf("[ SKIPPED  ] %s: %s\n", shown(row.argv).c_str(), nobody.why_not().c_str());
      ++skipped;
      continue;
    }
    argv = row.as_nobody ? nobody.argv(argv) : with_build_path(argv);
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

// The paragraph of `help` that describes `flag`: up to the next option.
std::string option_help(const std::string& help, const std::string& flag) {
  size_t at = help.find("  " + flag + " ");
  if (at == std::string::npos) return "";
  size_t end = help.find("\n  -", at + 1);
  return help.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// A list-valued option's help names the values it takes, from their
// table: every transport of the transport table (the built-in rows; rpclab adds its adapters') in
// --transports, every figure key in compare's --figures (issue 39: the
// help of --transports said "comma-separated transports" and no more).
TEST(HelpText, ListValuedOptionsNameTheirValuesFromTheirTables) {
  for (const char* command : {"dependability", "speed"}) {
    ProcessResult r = run_program(with_build_path({"rpclab", command, "--help"}), std::chrono::seconds(10));
    std::string transports = option_help(r.out, "--transports");
    ASSERT_FALSE(transports.empty()) << command << ":\n" << r.out;
    for (const TransportRow& row : rpclab::transports())
      EXPECT_NE(transports.find(row.name), std::string::npos) << command << " --transports lacks " << row.name
                                                              << ": " << transports;
  }
  ProcessResult compare = run_program(with_build_path({"rpclab", "compare", "--help"}), std::chrono::seconds(10));
  std::string figures = option_help(compare.out, "--figures");
  ASSERT_FALSE(figures.empty()) << compare.out;
  for (const std::string& key : harness::compare_figure_keys())
    EXPECT_NE(figures.find(key), std::string::npos) << "--figures lacks " << key << ": " << figures;
}

// Every program's and command's --help reads as written: no CLI11
// leftovers (a negated flag's "--x,--no-x{false}", a check's name after
// the type, "TEXT:TEXT", a CLI::Range's "FLOAT:FLOAT in [0 - 3.6e+06]").
// The commands are the ones each program's --help lists, so a new one is
// checked without being named here.
TEST(HelpText, HoldsNoCli11Leftovers) {
  std::vector<std::vector<std::string>> helps;
  for (const char* program : {"rpclab", "rpclab-server", "rpclab-client", "rpclab-linktest", "rpclab-linkprobe"}) {
    helps.push_back({program, "--help"});
    ProcessResult top = run_program(with_build_path(helps.back()), std::chrono::seconds(10));
    for (const std::string& command : subcommands_in(top.out)) helps.push_back({program, command, "--help"});
  }
  size_t commands = 0;
  for (const auto& argv : helps) {
    ProcessResult r = run_program(with_build_path(argv), std::chrono::seconds(10));
    SCOPED_TRACE(shown(argv));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const char* leftover : {"{false}", "{true}", "TEXT:TEXT", "FLOAT:FLOAT", "INT:INT", " in ["})
      EXPECT_EQ(r.out.find(leftover), std::string::npos) << leftover << " in:\n" << r.out;
    commands += argv.size() == 3;
  }
  EXPECT_GE(commands, 8u) << "rpclab's six commands and rpclab-linkprobe's two were not all read from --help";
  // The two the issue named: speed's calibration pair and --title.
  ProcessResult speed = run_program(with_build_path({"rpclab", "speed", "--help"}), std::chrono::seconds(10));
  for (const char* line : {"  --calibrate  ", "  --no-calibrate  ", "  --title TEXT  "})
    EXPECT_NE(speed.out.find(line), std::string::npos) << line << " not in:\n" << speed.out;
}

// --preset and --tables say every preset and table there is, with what
// each preset asks: read from the presets' rows, not written beside them
// (levy-surface and its two tables were missing from the hand-kept lists).
TEST(HelpText, NamesEveryPresetWithWhatItAsksAndEveryTable) {
  ProcessResult dep = run_program(with_build_path({"rpclab", "dependability", "--help"}), std::chrono::seconds(10));
  for (const std::string& preset : harness::dependability_presets()) {
    EXPECT_NE(dep.out.find(preset + ": "), std::string::npos) << preset << " not described in:\n" << dep.out;
    std::string tables;
    for (const harness::Block& b : harness::dependability_preset(preset))
      tables += (tables.empty() ? "" : ", ") + b.name;
    EXPECT_NE(dep.out.find(tables + " (" + preset + ")"), std::string::npos) << tables << " not in:\n" << dep.out;
  }
  ProcessResult speed = run_program(with_build_path({"rpclab", "speed", "--help"}), std::chrono::seconds(10));
  for (const std::string& preset : harness::speed_preset_names())
    EXPECT_NE(speed.out.find(preset + ": "), std::string::npos) << preset << " not described in:\n" << speed.out;
}

// Missing privileges: as nobody, the harness runs what it can and says
// what it skipped; clean-net --all refuses and says to use sudo.
TEST(BadInput, WithoutRootTheHarnessSaysWhatNeedsRoot) {
  NobodyPrograms nobody({"rpclab", "rpclab-server", "rpclab-client"});
  if (!nobody.why_not().empty()) GTEST_SKIP() << nobody.why_not();
  auto as_nobody = [&](std::vector<std::string> args) {
    return run_program(nobody.argv(args), std::chrono::seconds(60));
  };
  ProcessResult skip = as_nobody({"rpclab", "dependability", "--preset", "quick", "--tables", "udp-dup",
                                  "--fault-calls", "10", "--out", nobody.work("run"), "--results-root",
                                  nobody.work("results")});
  EXPECT_EQ(skip.exit_code, 0) << skip.err;
  EXPECT_NE(skip.err.find("not root"), std::string::npos) << skip.err;
  auto records = read_jsonl(nobody.work("run/results.jsonl"));
  EXPECT_FALSE(records.empty()) << skip.err;
  for (const auto& rec : records) {
    EXPECT_EQ(rec["status"], "skipped");
    EXPECT_NE(rec["reason"].get<std::string>().find("need root"), std::string::npos) << rec["reason"];
    EXPECT_NE(rec["reason"].get<std::string>().find("run as root"), std::string::npos) << rec["reason"];
  }

  std::string ns = std::string(netem::kNamespacePrefix) + std::to_string(::getpid()) + "-badinput";
  ASSERT_EQ(run_program({"ip", "netns", "add", ns}).exit_code, 0);
  // This test's own namespace has a live owner: only --all would remove it.
  ProcessResult clean = as_nobody({"rpclab", "clean-net", "--all"});
  run_program({"ip", "netns", "delete", ns});
  EXPECT_EQ(clean.exit_code, kSetup) << clean.err;
  EXPECT_NE(clean.err.find("needs root"), std::string::npos) << clean.err;
  EXPECT_NE(clean.err.find("sudo make clean-net"), std::string::npos) << clean.err;
}

// `rpclab clean-net` beside a run in progress leaves that run's namespaces
// (named after its live pid) and removes a dead run's; --all removes both.
// In a mount namespace of its own with an empty /run/netns, so the
// namespaces of tests running beside it are out of its sight.
TEST(BadInput, CleanNetLeavesTheNamespacesOfARunStillGoingUnlessAll) {
  if (::geteuid() != 0) GTEST_SKIP() << "making network namespaces needs root";
  pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  std::string prefix = netem::kNamespacePrefix;
  std::string live = prefix + std::to_string(::getpid()) + "-clean", dead = prefix + std::to_string(gone) + "-clean";
  std::string script = "set -e; mkdir -p /run/netns; mount -t tmpfs rpclab-test /run/netns; ip netns add " + live +
                       "; ip netns add " + dead + "; " + bin("rpclab") + " clean-net; echo '=== left:'; ls /run/netns; " +
                       "echo '=== all:'; " + bin("rpclab") + " clean-net --all; echo '=== left:'; ls /run/netns";
  ProcessResult r = run_program({"unshare", "-m", "sh", "-c", script});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // The output in four parts: each pass of clean-net, and what it left.
  std::vector<std::string> parts;
  for (size_t at = 0;;) {
    size_t next = r.out.find("=== ", at);
    parts.push_back(r.out.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + 4;
  }
  ASSERT_EQ(parts.size(), 4u) << r.out;
  EXPECT_NE(parts[0].find("removed " + dead), std::string::npos) << r.out;
  EXPECT_EQ(parts[0].find("removed " + live), std::string::npos) << r.out;
  EXPECT_NE(parts[0].find("left " + live + ": the run that made it is still going"), std::string::npos) << r.out;
  EXPECT_NE(parts[1].find(live), std::string::npos) << r.out;
  EXPECT_EQ(parts[1].find(dead), std::string::npos) << r.out;
  EXPECT_NE(parts[2].find("removed " + live), std::string::npos) << r.out;
  EXPECT_EQ(parts[3].find(prefix), std::string::npos) << "--all left some:\n" << r.out;
}

// A user let run rpclab (setpriv or sudo -u start it) whose folder that
// user cannot search, as a build under a 0700 home: the run says which
// program it cannot start and how to fix that, before it makes a folder.
// It must not need to resolve its own path to find out (it once aborted
// with "cannot make canonical path ... [/proc/self/exe]", exit 134).
TEST(BadInput, AProgramFolderTheUserCannotSearchIsNamedBeforeTheRunStarts) {
  NobodyPrograms nobody({"rpclab", "rpclab-server", "rpclab-client"}, 0700);
  if (!nobody.why_not().empty()) GTEST_SKIP() << nobody.why_not();
  for (std::vector<std::string> args : {dependability({"--tables", "clean"}), speed({})}) {
    args.insert(args.end(), {"--preset", "quick", "--transports", "raw-udp", "--out", nobody.work("run"),
                             "--results-root", nobody.work("results")});
    SCOPED_TRACE(shown(args));
    ProcessResult r = run_program(nobody.argv(args), std::chrono::seconds(60));
    EXPECT_EQ(r.exit_code, kSetup) << r.err;
    EXPECT_NE(r.err.find("cannot run " + nobody.bin_dir() + "/rpclab-server as user nobody: Permission denied"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Build rpclab in a folder this user can reach"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(nobody.work("run"))) << "a run that cannot start made a results folder";
  }
}

// A backend this kernel lacks, asked for by name: the run stops before its
// first cell (exit 3) with the reason and the way out, and runs nothing,
// not even the cells that need no faults.
TEST(BadInput, AMissingFaultBackendStopsTheRunBeforeItsFirstCellSayingWhatToUseInstead) {
  if (!is_root()) GTEST_SKIP() << "needs root: without it the fault cells are skipped, so no backend is needed";
  netem::Capabilities caps = netem::probe_capabilities();
  if (caps.host_netem) GTEST_SKIP() << "this kernel has sch_netem, so the netem backend is not missing here";
  TempDir dir;
  ProcessResult r = run_program({bin("rpclab"), "dependability", "--preset", "quick", "--calls", "10",
                                 "--fault-calls", "10", "--faults-backend", "netem", "--out", dir.file("run")},
                                std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, kSetup) << r.err;
  EXPECT_NE(r.err.find("no sch_netem"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("use uml-netem"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Nothing was run"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("run"))) << "a run that could not have its backend made a folder";
}

}  // namespace
}  // namespace rpclab::test
