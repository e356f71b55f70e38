// The scheduler accounting readers on /proc text captured here (and one
// written in the kernel's format: fixtures/README.md says which and why).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "netem/load/schedstat.h"

namespace rpclab::netem {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(RPCLAB_SOURCE_DIR) + "/tests/netem/fixtures/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Schedstat, TaskTimesAreRunWaitAndTimeslices) {
  auto t = parse_task_schedstat(fixture("proc-task-schedstat-hog.txt"));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->run_ns, 439548949u);
  EXPECT_EQ(t->wait_ns, 63809980u);
  EXPECT_EQ(t->timeslices, 49u);
  EXPECT_FALSE(parse_task_schedstat("").has_value());
  EXPECT_FALSE(parse_task_schedstat("12 x 3").has_value());
}

TEST(Schedstat, CpuLineGivesRunAndWaitOfThatCpuOnly) {
  std::string text = fixture("proc-schedstat-v16.txt");
  auto cpu0 = parse_cpu_schedstat(text, 0), cpu1 = parse_cpu_schedstat(text, 1);
  ASSERT_TRUE(cpu0 && cpu1);
  EXPECT_EQ(cpu0->run_ns, 1930045512381u);
  EXPECT_EQ(cpu0->wait_ns, 884120553901u);
  EXPECT_EQ(cpu0->timeslices, 1131239u);
  EXPECT_EQ(cpu1->run_ns, 2113884670212u);
  EXPECT_FALSE(parse_cpu_schedstat(text, 2).has_value()) << "no such CPU";
  EXPECT_FALSE(parse_cpu_schedstat("version 16\ncpu0 1 2 3\n", 0).has_value()) << "a short line is not read";
  // "cpu1" must not be taken for "cpu10".
  EXPECT_FALSE(parse_cpu_schedstat("cpu10 0 0 1 1 1 1 5 6 7\n", 1).has_value());
}

TEST(Schedstat, MeanRunnableIsRunPlusWaitOverTheWindow) {
  SchedTimes before{1000000000, 500000000, 10}, after{1900000000, 3100000000, 40};
  SchedTimes d = after - before;
  EXPECT_EQ(d.run_ns, 900000000u);
  EXPECT_EQ(d.wait_ns, 2600000000u);
  EXPECT_EQ(d.timeslices, 30u);
  // Over one second: 0.9 s running + 2.6 s waiting = 3.5 tasks on average.
  EXPECT_DOUBLE_EQ(static_cast<double>(d.run_ns + d.wait_ns) / 1e9 / 1.0, 3.5);
  SchedTimes backwards = before - after;  // a counter reset (a thread reused) reads as nothing, not 2^64
  EXPECT_EQ(backwards.run_ns, 0u);
}

TEST(Schedstat, TaskStateAndCpuFromStat) {
  auto hog = parse_task_stat(fixture("proc-task-stat-hog.txt"));
  ASSERT_TRUE(hog.has_value());
  EXPECT_EQ(hog->state, 'R');
  EXPECT_EQ(hog->cpu, 0);
  auto odd = parse_task_stat(fixture("proc-task-stat-odd-name.txt"));
  ASSERT_TRUE(odd.has_value()) << "a name with ') (' in it";
  EXPECT_EQ(odd->state, 'S');
  EXPECT_EQ(odd->cpu, 0);
  EXPECT_FALSE(parse_task_stat("27688 (cut short) R 1 2").has_value());
}

TEST(Schedstat, ProcsRunningFromProcStat) {
  EXPECT_EQ(parse_procs_running(fixture("proc-stat.txt")), 3);
  EXPECT_FALSE(parse_procs_running("cpu 1 2 3\n").has_value());
}

TEST(Schedstat, LiveReadersSeeThisProcess) {
  auto threads = read_thread_schedstats(::getpid());
  ASSERT_TRUE(threads.count(::getpid())) << "the main thread's own schedstat";
  EXPECT_GT(threads[::getpid()].run_ns, 0u);
  EXPECT_GE(procs_running(), 1) << "this test is running";
}

}  // namespace
}  // namespace rpclab::netem
