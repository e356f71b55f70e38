// Nothing of ours outlives a run: namespaces of a SIGKILLed owner are
// removed by the next run, and a user-mode-linux guest dies with its caller,
// on timeout, and at power-off, leaving no linux.uml process behind.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "process/command_runner.h"
#include "netem/events/event_runner.h"
#include "netem/faults/backend_factory.h"
#include "netem/topology/topology.h"
#include "netem/topology/uml_guest.h"
#include "netem_test_util.h"
#include "support/wait.h"
#include "netem/config/fault_events.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {
using namespace rpclab::process;  // the process layer (process/) the netem code runs on
namespace {

using test::wait_until;

using namespace std::chrono_literals;
using testing::uml_processes;
using testing::why_not_namespaces;
using testing::why_not_nftables;
using testing::why_not_uml;

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool owned_by(const std::string& ns, pid_t pid) {
  return ns.rfind(std::string(kNamespacePrefix) + std::to_string(pid) + "-", 0) == 0;
}

// Forks a process that runs `body` and then waits to be killed; returns
// once it has written its ready line to the pipe.
pid_t fork_holder(const std::function<void()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    try {
      body();
    } catch (...) {
      _exit(1);
    }
    (void)!::write(fds[1], "r", 1);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  char c = 0;
  (void)!::read(fds[0], &c, 1);
  ::close(fds[0]);
  return c == 'r' ? pid : -1;
}

TEST(Topology, LoopbackNeedsNoNamespaceAndTakesNoFaults) {
  CommandLog log;
  auto t = Topology::create(TopologyKind::kLoopback, log);
  EXPECT_EQ(t->server().address, "127.0.0.1");
  EXPECT_TRUE(t->namespaces().empty());
  EXPECT_EQ(t->place(), "host loopback");
  EXPECT_TRUE(log.lines().empty());
  EXPECT_THROW(make_backend(BackendKind::kNftables, *t, log), SpecError);
  EXPECT_EQ(parse_topology(topology_name(TopologyKind::kTwoHost)), TopologyKind::kTwoHost);
}

TEST(Topology, TwoHostLivesOnlyInItsNamespacesAndGoesAway) {
  if (auto why = why_not_namespaces(); !why.empty()) GTEST_SKIP() << why;
  CommandLog log;
  std::vector<std::string> names;
  {
    auto t = Topology::create(TopologyKind::kTwoHost, log);
    names = t->namespaces();
    ASSERT_EQ(names.size(), 2u);
    EXPECT_TRUE(owned_by(names[0], ::getpid())) << names[0];
    EXPECT_NE(run_checked({"ip", "-n", t->server().netns, "addr", "show", "dev", "veth-srv"}, log).out.find(
                  "198.18.0.1/30"), std::string::npos);
    EXPECT_NE(run_checked({"ip", "-n", t->client().netns, "neigh", "show"}, log).out.find("PERMANENT"),
              std::string::npos);
    // Neither end of the veth ever exists in the host's namespace.
    EXPECT_NE(run({"ip", "link", "show", "dev", "veth-srv"}, log).exit_code, 0);
    EXPECT_NE(run({"ip", "link", "show", "dev", "veth-cli"}, log).exit_code, 0);
  }
  auto left = list_our_namespaces();
  for (const auto& n : names) EXPECT_FALSE(has(left, n)) << n << " survived its Topology";
}

// A loopback cell's namespace of its own: client and server share it, on
// its lo; it is one namespace, deleted once, and faults are still refused.
TEST(Topology, PrivateLoopbackIsOneNamespaceDeletedOnce) {
  if (auto why = why_not_namespaces(); !why.empty()) GTEST_SKIP() << why;
  CommandLog log;
  std::string name;
  {
    auto t = Topology::create(TopologyKind::kLoopback, log, LoopbackPlace::kPrivateNamespace);
    ASSERT_EQ(t->namespaces().size(), 1u);
    name = t->namespaces().front();
    EXPECT_TRUE(owned_by(name, ::getpid())) << name << ": remove_stale_namespaces() could not find its owner";
    EXPECT_EQ(t->server().netns, name);
    EXPECT_EQ(t->client().netns, name);
    EXPECT_EQ(t->client().address, "127.0.0.1");
    EXPECT_EQ(t->client().ifname, "lo");
    EXPECT_EQ(t->place(), "loopback in a private namespace");
    EXPECT_NE(run_checked({"ip", "-n", name, "addr", "show", "dev", "lo"}, log).out.find("127.0.0.1/8"),
              std::string::npos) << "its lo is not up";
    EXPECT_THROW(make_backend(BackendKind::kNftables, *t, log), SpecError);
  }
  EXPECT_FALSE(has(list_our_namespaces(), name)) << name << " survived its Topology";
  size_t deletes = 0;
  for (const std::string& line : log.lines()) deletes += line.find("netns delete " + name) != std::string::npos;
  EXPECT_EQ(deletes, 1u) << "deleted once, not once per end";
}

TEST(Topology, SigkilledOwnerLeavesNamespacesThatTheNextRunRemoves) {
  if (auto why = why_not_namespaces(); !why.empty()) GTEST_SKIP() << why;
  pid_t holder = fork_holder([] {
    static CommandLog log;
    static auto t = Topology::create(TopologyKind::kTwoHost, log);  // never destroyed: the owner is killed
  });
  ASSERT_GT(holder, 0);
  auto theirs = [holder] {
    std::vector<std::string> out;
    for (const auto& n : list_our_namespaces())
      if (owned_by(n, holder)) out.push_back(n);
    return out;
  };
  ASSERT_EQ(theirs().size(), 2u);
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  EXPECT_EQ(theirs().size(), 2u) << "a SIGKILLed owner cannot clean up";
  CommandLog log;
  auto removed = remove_stale_namespaces(log);
  EXPECT_GE(removed.size(), 2u);
  EXPECT_TRUE(theirs().empty());
  for (const auto& n : list_our_namespaces()) {  // any left has a live owner
    pid_t owner = std::atoi(n.c_str() + std::string(kNamespacePrefix).size());
    EXPECT_EQ(::kill(owner, 0), 0) << n << " is stale and was not removed";
  }
}

// A partition lives only in the two namespaces (a table of its own in
// each): a run SIGKILLed with one in place leaves it to the next run's
// cleanup, which deletes the namespaces, and nothing of it on the host.
TEST(Topology, APartitionLeftByASigkilledRunGoesWithItsNamespaces) {
  if (auto why = why_not_nftables(); !why.empty()) GTEST_SKIP() << why;
  pid_t holder = fork_holder([] {
    static CommandLog log;
    static auto t = Topology::create(TopologyKind::kTwoHost, log);
    static auto backend = make_backend(BackendKind::kNftables, *t, log);
    backend->apply(FaultSpec{});
    EventTargets targets{backend.get(), {}};
    FaultEvent partition = parse_event("partition at=0s for=10s");
    partition.kind->apply(targets, partition, EventPhase::kStart);  // never ended: the owner is killed
  });
  ASSERT_GT(holder, 0);
  CommandLog log;
  std::vector<std::string> theirs;
  for (const auto& n : list_our_namespaces())
    if (owned_by(n, holder)) theirs.push_back(n);
  ASSERT_EQ(theirs.size(), 2u);
  for (const auto& ns : theirs)
    EXPECT_NE(run_checked({"nft", "list", "tables"}, log, ns).out.find("rpclab-partition"), std::string::npos) << ns;
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  remove_stale_namespaces(log);
  for (const auto& ns : theirs) EXPECT_FALSE(has(list_our_namespaces(), ns)) << ns << " survived the cleanup";
  EXPECT_EQ(run_checked({"nft", "list", "tables"}, log).out.find("rpclab"), std::string::npos)
      << "an rpclab table on the host";
  EXPECT_EQ(run_checked({"ip", "-o", "link", "show"}, log).out.find("veth-srv"), std::string::npos)
      << "an end of the link on the host";
}

TEST(UmlGuest, RunsTheCommandAndReturnsItsExitCode) {
  if (auto why = why_not_uml(); !why.empty()) GTEST_SKIP() << why;
  GuestOptions o;
  o.work_dir = testing::temp_dir("guest-exit");
  o.timeout = 60s;
  o.stdout_path = o.work_dir + "/out";
  CommandLog log;
  GuestRun r = run_in_guest({"/bin/sh", "-c", "lsmod | grep -c -E '^(sch_netem|veth) '; exit 7"}, o, log);
  ASSERT_TRUE(r.completed) << r.failure;
  EXPECT_EQ(r.exit_code, 7);
  std::ifstream out(o.stdout_path);
  int modules = 0;
  out >> modules;
  EXPECT_EQ(modules, 2) << "sch_netem and veth loaded in the guest";
  EXPECT_GT(r.boot_ms, 0);
  EXPECT_LT(r.boot_ms, 30000);
  std::cout << "[ measured ] guest boot " << r.boot_ms << " ms, whole run " << r.total_ms << " ms\n";
}

TEST(UmlGuest, TimeoutKillsEveryGuestProcess) {
  if (auto why = why_not_uml(); !why.empty()) GTEST_SKIP() << why;
  GuestOptions o;
  o.work_dir = testing::temp_dir("guest-timeout");
  o.timeout = 4s;
  CommandLog log;
  GuestRun r = run_in_guest({"/bin/sleep", "600"}, o, log);
  EXPECT_FALSE(r.completed);
  EXPECT_NE(r.failure.find("timed out"), std::string::npos) << r.failure;
  // SIGKILLed processes take a moment to be gone.
  wait_until([&o] { return uml_processes(o.work_dir).empty(); }, 10s);
  for (pid_t pid : uml_processes(o.work_dir)) ADD_FAILURE() << "linux.uml " << pid << " survived";
}

TEST(UmlGuest, DiesWithASigkilledCaller) {
  if (auto why = why_not_uml(); !why.empty()) GTEST_SKIP() << why;
  std::string dir = testing::temp_dir("guest-kill");
  ::unlink((dir + "/boot-time").c_str());
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t caller = ::fork();
  ASSERT_GE(caller, 0);
  if (caller == 0) {
    GuestOptions o;
    o.work_dir = dir;
    o.timeout = 600s;
    CommandLog log;
    run_in_guest({"/bin/sleep", "600"}, o, log);
    _exit(0);
  }
  bool booted = wait_until([&dir] { return ::access((dir + "/boot-time").c_str(), F_OK) == 0; }, 30s, 100ms);
  ASSERT_TRUE(booted) << "the guest did not start its command within 30 s";
  EXPECT_GE(uml_processes(dir).size(), 2u) << "a booted guest runs several host processes";
  ::kill(caller, SIGKILL);
  ::waitpid(caller, nullptr, 0);
  wait_until([&dir] { return uml_processes(dir).empty(); }, 5s, 50ms);
  EXPECT_TRUE(uml_processes(dir).empty()) << uml_processes(dir).size()
                                          << " linux.uml processes outlived their SIGKILLed caller";
}

}  // namespace
}  // namespace rpclab::netem
