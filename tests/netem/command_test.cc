// Commands, the log that replays them, child processes and server load.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "netem/topology/capabilities.h"
#include "netem/topology/capabilities_report.h"
#include "process/child_process.h"
#include "process/command_runner.h"
#include "netem/load/load_meter.h"
#include "netem/load/schedstat.h"
#include "netem/load/server_load.h"
#include "support/wait.h"

namespace rpclab::netem {
using namespace rpclab::process;  // the process layer (process/) the netem code runs on
namespace {

using test::wait_until;

using namespace std::chrono_literals;

std::string temp_path(const std::string& name) {
  return "/tmp/rpclab-netem-test-" + std::to_string(::getpid()) + "-" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A zombie is dead for our purposes: whoever adopted it may reap it late.
bool alive(pid_t pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

TEST(ShellLine, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_line({"tc", "qdisc", "add", "dev", "veth-cli", "root", "netem", "loss", "5%"}),
            "tc qdisc add dev veth-cli root netem loss 5%");
  EXPECT_EQ(shell_line({"nft", "add", "chain", "netdev", "t", "{ type filter; }", "<", "it's", ""}),
            "nft add chain netdev t '{ type filter; }' '<' 'it'\\''s' ''");
}

TEST(ShellLine, ReplaysExactlyThroughASh) {
  std::vector<std::string> argv = {"printf", "%s|", "a b", "it's", "\"q\"", "$HOME", "{x}"};
  CommandLog log;
  CommandResult r = run({"sh", "-c", shell_line(argv)}, log);
  EXPECT_EQ(r.out, "a b|it's|\"q\"|$HOME|{x}|");
}

TEST(CommandLog, AppendsReplayableLinesToItsFile) {
  std::string path = temp_path("commands.log");
  std::remove(path.c_str());
  {
    CommandLog log(path);
    log.comment("setup");
    log.command({"tc", "qdisc", "show"}, "rpclab-1-0-srv");
    log.shell("sleep 1 &");
    EXPECT_EQ(log.lines().size(), 3u);
  }
  EXPECT_EQ(slurp(path), "# setup\nip netns exec rpclab-1-0-srv tc qdisc show\nsleep 1 &\n");
  std::remove(path.c_str());
}

TEST(CommandRunner, ToolPathPrefersSystemDirs) {
  EXPECT_EQ(tool_path("ip").rfind("/", 0), 0u);
  EXPECT_NE(tool_path("ip").find("sbin/ip"), std::string::npos) << "busybox must not answer for ip";
  EXPECT_EQ(tool_path("/bin/true"), "/bin/true");
  EXPECT_EQ(tool_path("no-such-tool-rpclab"), "no-such-tool-rpclab");
}

TEST(CommandRunner, CapturesOutputAndExitCodeAndLogs) {
  CommandLog log;
  CommandResult r = run({"sh", "-c", "echo out; echo err >&2; exit 3"}, log);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  ASSERT_EQ(log.lines().size(), 1u);
  EXPECT_NE(log.lines()[0].find("sh -c 'echo out; echo err >&2; exit 3'"), std::string::npos);
}

TEST(CommandRunner, CheckedThrowsWithCommandAndStderr) {
  CommandLog log;
  try {
    run_checked({"sh", "-c", "echo broken pipe dream >&2; exit 1"}, log);
    FAIL();
  } catch (const CommandError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("exit 1"), std::string::npos) << what;
    EXPECT_NE(what.find("broken pipe dream"), std::string::npos) << what;
  }
  EXPECT_THROW(run({"/no/such/program"}, log), CommandError);
}

TEST(ChildProcess, RedirectsAndReportsStatus) {
  CommandLog log;
  SpawnOptions o;
  o.stdout_path = o.stderr_path = temp_path("both.log");
  o.env = {"RPCLAB_TEST_VALUE=42"};
  ChildProcess p({"sh", "-c", "echo out $RPCLAB_TEST_VALUE; echo err >&2; exit 5"}, o, log);
  auto status = p.wait_for(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(describe_wait_status(*status), "exited with code 5");
  EXPECT_EQ(slurp(o.stdout_path), "out 42\nerr\n");
  EXPECT_NE(log.lines().back().find("2>&1 &"), std::string::npos) << log.lines().back();
  std::remove(o.stdout_path.c_str());
}

TEST(ChildProcess, PinsToCpus) {
  CommandLog log;
  SpawnOptions o;
  o.cpus = {0};
  o.stdout_path = temp_path("affinity");
  ChildProcess p({"sh", "-c", "grep Cpus_allowed_list /proc/self/status"}, o, log);
  ASSERT_TRUE(p.wait_for(10s));
  EXPECT_NE(slurp(o.stdout_path).find("Cpus_allowed_list:\t0\n"), std::string::npos) << slurp(o.stdout_path);
  std::remove(o.stdout_path.c_str());
}

TEST(ChildProcess, StopKillsTheWholeGroup) {
  CommandLog log;
  SpawnOptions o;
  o.stdout_path = temp_path("group");
  // The shell ignores SIGTERM and leaves a grandchild: stop() must still
  // end both.
  ChildProcess p({"sh", "-c", "trap '' TERM; sleep 600 & echo $!; wait"}, o, log);
  pid_t grandchild = 0;
  ASSERT_TRUE(wait_until([&] { return (grandchild = std::atoi(slurp(o.stdout_path).c_str())) > 0; }, 2s));
  int status = p.stop(200ms);
  EXPECT_EQ(describe_wait_status(status), "killed by SIGKILL");
  EXPECT_TRUE(wait_until([grandchild] { return !alive(grandchild); }, 1s));
  std::remove(o.stdout_path.c_str());
}

TEST(ChildProcess, DiesWithItsParent) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    CommandLog log;
    ChildProcess p({"sleep", "600"}, {}, log);
    pid_t pid = p.pid();
    (void)!::write(fds[1], &pid, sizeof pid);
    ::pause();
    _exit(0);
  }
  pid_t child = 0;
  ASSERT_EQ(::read(fds[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  EXPECT_TRUE(wait_until([child] { return !alive(child); }, 2s)) << "PR_SET_PDEATHSIG did not kill the child";
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(ChildProcess, MissingProgramThrows) {
  CommandLog log;
  EXPECT_THROW(ChildProcess({"/no/such/program"}, {}, log), CommandError);
}

TEST(ServerLoad, HogsAreRunnableOnTheirCpuWhenTheConstructorReturns) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "pinning the hogs away from the test needs 2 CPUs";
  CommandLog log;
  ServerLoad load(3, {0}, log);
  EXPECT_TRUE(load.settled()) << "every hog on CPU 0 and given it again within 2 s";
  EXPECT_LT(load.settle_s(), 2.0);
  // At once, no waiting: the three hogs are in CPU 0's run queue already.
  LoadMeter meter(::getpid(), {0}, {1});
  MeasuredLoad m = meter.finish(3);
  EXPECT_EQ(m.hogs, 3);
  EXPECT_GE(m.samples, 2);
  ASSERT_TRUE(m.server_cpu_run_queue.has_value());
  EXPECT_GE(*m.server_cpu_run_queue, 3.0) << "three busy hogs are runnable on CPU 0 (" << m.server_cpu_method << ")";
  EXPECT_GE(m.machine_run_queue, 3.0);
  EXPECT_NE(log.lines().front().find("3 hogs"), std::string::npos);
  load.stop();
  // Gone: no child of ours is left, running or unreaped. (Not "CPU 0's run
  // queue fell under 3": in CI the suite runs beside builds and other test
  // programs, which fill that queue with processes of their own.)
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a hog is still our child";
  EXPECT_EQ(errno, ECHILD) << "a hog is still our child";
}

// A "server" that competes with two hogs for CPU 0 waits to run: its
// threads' run delay per timeslice is what the load costs it.
TEST(LoadMeter, AServerSharingItsCpuWithHogsWaitsToRun) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "pinning needs 2 CPUs";
  CommandLog log;
  ServerLoad hogs(2, {0}, log);
  SpawnOptions on_cpu0;
  on_cpu0.cpus = {0};
  ChildProcess busy({"/bin/sh", "-c", "while :; do :; done"}, on_cpu0, log);
  LoadMeter meter(busy.pid(), {0}, {1});
  auto slices = [&] { return read_thread_schedstats(busy.pid())[busy.pid()].timeslices; };
  uint64_t start = slices();
  wait_until([&] { return slices() >= start + 5; }, 10s, 1ms);
  MeasuredLoad m = meter.finish(2);
  ASSERT_GE(m.server_timeslices, 5u) << "the busy process was given CPU 0 at least five times";
  ASSERT_TRUE(m.server_wait_us_per_timeslice.has_value());
  EXPECT_GT(*m.server_wait_us_per_timeslice, 0.0);
  EXPECT_GT(m.server_wait_s, 0.0);
  EXPECT_GE(*m.server_cpu_run_queue, 2.5) << "two hogs and the busy process";
  nlohmann::json j = m.to_json();
  EXPECT_EQ(j["server_cpu"], 0);
  EXPECT_TRUE(j["server_wait_us_per_timeslice"].is_number());
}

TEST(LoadMeter, AnUnpinnedServerHasNoCpuOfItsOwn) {
  LoadMeter meter(::getpid(), {}, {});
  MeasuredLoad m = meter.finish(0);
  EXPECT_FALSE(m.server_cpu_run_queue.has_value());
  EXPECT_TRUE(m.to_json()["server_cpu_run_queue"].is_null());
}

TEST(Capabilities, DescribeSaysWhatIsSkippedAndWhy) {
  Capabilities caps = probe_capabilities();
  std::string text = describe(caps);
  EXPECT_NE(text.find("netem in the host kernel"), std::string::npos) << text;
  EXPECT_NE(text.find("user-mode-linux"), std::string::npos) << text;
  if (!caps.host_netem && caps.root && caps.netns) {
    EXPECT_NE(text.find("has no sch_netem"), std::string::npos) << text;
  }
  EXPECT_GE(caps.cpus, 1);
}

}  // namespace
}  // namespace rpclab::netem
