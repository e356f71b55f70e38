// Sun RPC with rpcbind: the server registers, `rpcinfo` lists it and gets
// an answer from NULL, and a client binds by program number.
//
// idl/rpclab.rpc, the /etc/rpc line for the program, names it: in the
// private namespace /etc/rpc is a copy with that line added, and rpcinfo
// shows and takes the name.
//
// rpcbind is one per machine (/run/rpcbind.sock, port 111), so the test
// starts a private one: `unshare --mount --net` gives a namespace with its
// own /run (a tmpfs) and its own loopback, and everything that talks to
// that rpcbind runs inside it through `nsenter`. The host's rpcbind, if
// any, is never touched.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "rpclab.h"  // rpcgen's RPCLAB_PROG, from idl/rpclab.x

#include "rpc_test_util.h"
#include "support/client_process.h"
#include "support/server_process.h"
#include "support/wait.h"
#include "support/wire.h"

namespace rpclab::test {
namespace {


const std::string kProgramDecimal = std::to_string(kProgram);  // rpcinfo reads decimal only

// Where `program` is on PATH, or "" if nowhere.
std::string which(const std::string& program) {
  ProcessResult r = run_program({"sh", "-c", "command -v " + program}, std::chrono::seconds(5));
  return r.exit_code == 0 ? r.out.substr(0, r.out.find('\n')) : "";
}

// Waits until `path` exists or `process` has ended, whichever comes first:
// the condition that decides, not a guess at how long a namespace or
// rpcbind takes. True when the file is there. The limit only ends a hang,
// and one that passes is a failure of the test, not a skip.
bool wait_for_file_or_exit(const std::string& path, Child& process) {
  constexpr auto kHang = std::chrono::seconds(60);
  bool done = wait_until([&] { return ::access(path.c_str(), F_OK) == 0 || process.exit_code().has_value(); }, kHang);
  bool there = ::access(path.c_str(), F_OK) == 0;
  if (!done) ADD_FAILURE() << "neither " << path << " appeared nor did its process end in " << kHang.count() << " s";
  return there;
}

// A mount + network namespace with a private /run and an rpcbind in it.
// When it cannot be had, skip_reason() says exactly why.
class PrivateRpcbind {
 public:
  explicit PrivateRpcbind(const TempDir& dir) {
    if (::geteuid() != 0) {
      skip_ = "needs root to unshare a mount namespace and start rpcbind (running as uid " +
              std::to_string(::geteuid()) + ")";
      return;
    }
    for (const char* tool : {"rpcbind", "rpcinfo", "unshare", "nsenter", "ip"})
      if (which(tool).empty()) {
        skip_ = std::string(tool) + " is not installed (rpcbind: apt-get install rpcbind; unshare/nsenter: "
                "util-linux; ip: iproute2)";
        return;
      }
    std::string ready = dir.file("namespace-ready");
    holder_ = std::make_unique<Child>(
        std::vector<std::string>{"unshare", "--mount", "--net", "--propagation", "private", "sh", "-c",
                                 "ip link set lo up && mount -t tmpfs rpclab-run /run && touch " + ready +
                                     " && exec sleep 3600"},
        dir.file("namespace.log"));
    if (!wait_for_file_or_exit(ready, *holder_)) {
      skip_ = "cannot make a mount+network namespace with a private /run: " + read(dir.file("namespace.log"));
      return;
    }
    enter_ = {"nsenter", "-t", std::to_string(holder_->pid()), "-m", "-n"};
    std::vector<std::string> rpcbind = enter_;
    rpcbind.insert(rpcbind.end(), {"rpcbind", "-f", "-w"});
    rpcbind_ = std::make_unique<Child>(rpcbind, dir.file("rpcbind.log"));
    std::string sock = "/proc/" + std::to_string(holder_->pid()) + "/root/run/rpcbind.sock";
    if (!wait_for_file_or_exit(sock, *rpcbind_))
      skip_ = "rpcbind -f -w did not start in the private namespace: " + read(dir.file("rpcbind.log"));
  }

  ~PrivateRpcbind() {
    if (rpcbind_) rpcbind_->stop(SIGTERM);
    if (holder_) holder_->stop(SIGKILL);
  }

  const std::string& skip_reason() const { return skip_; }
  // Runs a command inside the namespace.
  std::vector<std::string> inside(std::vector<std::string> argv) const {
    argv.insert(argv.begin(), enter_.begin(), enter_.end());
    return argv;
  }
  const std::vector<std::string>& enter() const { return enter_; }

 private:
  static std::string read(const std::string& path) {
    ProcessResult r = run_program({"cat", path}, std::chrono::seconds(5));
    return r.out.empty() ? "(no output)" : r.out;
  }

  std::string skip_;
  std::unique_ptr<Child> holder_;
  std::unique_ptr<Child> rpcbind_;
  std::vector<std::string> enter_;
};

// The ports `rpcinfo -p` lists for our program, by protocol.
std::map<std::string, std::string> registered_ports(const std::string& listing) {
  std::map<std::string, std::string> ports;
  std::istringstream lines(listing);
  std::string program, version, proto, port;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    if (fields >> program >> version >> proto >> port && program == kProgramDecimal && version == "1")
      ports[proto] = port;
  }
  return ports;
}

TEST(Rpcbind, RpcinfoSeesTheProgramAndClientsBindByNumber) {
  TempDir dir;
  PrivateRpcbind ns(dir);
  if (!ns.skip_reason().empty()) GTEST_SKIP() << ns.skip_reason();
  ServerProcess udp(ServerSpec{"sunrpc-udp", {"--rpcbind"}, ns.enter()});
  ServerProcess tcp(ServerSpec{"sunrpc-tcp", {"--rpcbind"}, ns.enter()});

  ProcessResult listing = run_program(ns.inside({"rpcinfo", "-p"}));
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  auto ports = registered_ports(listing.out);
  EXPECT_EQ(ports["udp"], std::to_string(udp.port())) << listing.out;
  EXPECT_EQ(ports["tcp"], std::to_string(tcp.port())) << listing.out;

  for (const char* flag : {"-u", "-t"}) {
    ProcessResult ping = run_program(ns.inside({"rpcinfo", flag, "127.0.0.1", kProgramDecimal, "1"}));
    EXPECT_EQ(ping.exit_code, 0) << flag << ": " << ping.out << ping.err;
    std::string ready = "program " + kProgramDecimal + " version 1 ready and waiting";
    EXPECT_PRED_FORMAT2(testing::IsSubstring, ready, ping.out) << flag;
  }

  const std::pair<const char*, uint32_t> clients[] = {{"sunrpc-udp", 1}, {"sunrpc-tcp", 2}};
  for (auto [transport, id] : clients) {
    ClientRun run = run_client({"--transport", transport, "--rpcbind", "--server", "127.0.0.1:0", "--op", "next",
                                "--calls", "100", "--client-id", std::to_string(id), "--timeout", "5000"},
                               dir, ns.enter());
    ASSERT_EQ(run.process.exit_code, 0) << transport << ": " << run.process.err;
    EXPECT_EQ(run.record.header["outcomes"]["ok"], 100) << transport;
  }

  EXPECT_EQ(udp.stop().total_executions(1), 100u);
  EXPECT_EQ(tcp.stop().total_executions(2), 100u);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "1 NULL", udp.log());  // rpcinfo -u's ping
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "1 NULL", tcp.log());  // rpcinfo -t's ping
  // A server that stops takes its registration with it.
  ProcessResult after = run_program(ns.inside({"rpcinfo", "-p"}));
  EXPECT_TRUE(registered_ports(after.out).empty()) << after.out;
}

// The name and number of idl/rpclab.rpc's one /etc/rpc line.
std::pair<std::string, std::string> rpc_file_entry() {
  std::ifstream in(RPCLAB_SOURCE_DIR "/idl/rpclab.rpc");
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name, number;
    if (line.empty() || line[0] == '#' || !(fields >> name >> number)) continue;
    return {name, number};
  }
  return {};
}

TEST(RpcNameFile, GivesRpcgensProgramNumberInDecimal) {
  auto [name, number] = rpc_file_entry();
  EXPECT_EQ(name, "rpclab");
  EXPECT_EQ(number, std::to_string(RPCLAB_PROG)) << "idl/rpclab.rpc must carry idl/rpclab.x's program number";
}

TEST(RpcNameFile, RpcinfoShowsAndTakesTheName) {
  TempDir dir;
  PrivateRpcbind ns(dir);
  if (!ns.skip_reason().empty()) GTEST_SKIP() << ns.skip_reason();
  std::string etc_rpc = dir.file("etc-rpc");
  ProcessResult copy = run_program({"sh", "-c", "cat /etc/rpc " RPCLAB_SOURCE_DIR "/idl/rpclab.rpc > " + etc_rpc});
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  ProcessResult mount = run_program(ns.inside({"mount", "--bind", etc_rpc, "/etc/rpc"}));
  if (mount.exit_code != 0) GTEST_SKIP() << "cannot bind a copy of /etc/rpc in the private namespace: " << mount.err;
  ServerProcess udp(ServerSpec{"sunrpc-udp", {"--rpcbind"}, ns.enter()});

  ProcessResult listing = run_program(ns.inside({"rpcinfo", "-p"}));
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  bool named = false;
  std::istringstream lines(listing.out);
  for (std::string line; std::getline(lines, line);)
    named |= line.find(kProgramDecimal) != std::string::npos && line.find("rpclab") != std::string::npos;
  EXPECT_TRUE(named) << "rpcinfo -p does not name program " << kProgramDecimal << " rpclab:\n" << listing.out;
  ProcessResult ping = run_program(ns.inside({"rpcinfo", "-u", "127.0.0.1", "rpclab", "1"}));
  EXPECT_EQ(ping.exit_code, 0) << ping.out << ping.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "ready and waiting", ping.out);
  udp.stop();
}

}  // namespace
}  // namespace rpclab::test
