// `rpclab speed --preset paths`, in small: gRPC through real HAProxy 2.6
// before two real replicas, beside direct, with the at-most-once table
// off, each replica's own and shared (Redis). Every trial through the
// proxy records the proxy's CPU (its process, from /proc) and latencies;
// direct's records none; and the report's `paths` table says what the
// proxy added.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "harness_e2e_util.h"
#include "netem/topology/capabilities.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

std::string why_not_here() {
  if (!is_root()) return "a path's replicas and proxy live in network namespaces: the test needs root";
  if (!netem::probe_capabilities().netns) return "this kernel or container cannot create network namespaces";
  if (!fs::exists("/usr/sbin/haproxy")) return "haproxy is not installed (tools/deps.sh build installs it)";
  if (!fs::exists("/usr/bin/redis-server")) return "redis-server is not installed (tools/deps.sh build installs it)";
  return "";
}

TEST(SpeedPathsE2E, EachTrialThroughTheProxyRecordsItsCpuAndLatencies) {
  if (std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  ProcessResult r = run_program({bin("rpclab"), "speed", "--preset", "paths", "--transports", "grpc", "--paths",
                                 "direct,haproxy", "--trials", "2", "--calls-per-trial", "200", "--warmup", "5",
                                 "--out", dir.file("run"), "--results-root", dir.file("results")},
                                120s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto trials = read_jsonl(dir.file("run/trials.jsonl"));
  // direct: off, own; haproxy x2: off, own, shared; 2 trials each.
  ASSERT_EQ(trials.size(), 10u);
  int through_proxy = 0;
  double proxy_cpu = 0;
  for (const json& t : trials) {
    SCOPED_TRACE(t["label"].get<std::string>() + " trial " + std::to_string(t["trial"].get<int>()));
    ASSERT_EQ(t["status"], "ok") << t["reason"];
    EXPECT_GT(t["p50_us"].get<double>(), 0);
    EXPECT_GE(t["p99_us"].get<double>(), t["p50_us"].get<double>());
    EXPECT_GT(t["server_cpu_us"].get<double>(), 0);
    // The replicas' summed: through HAProxy each served about half. (NEXT's
    // warm-up calls are not counted as served: at least the measured ones.)
    EXPECT_GE(t["calls_served"].get<double>(), 200);
    bool proxy = t["cell"].value("path", "") == "haproxy";
    ASSERT_EQ(t.contains("proxy_cpu_us"), proxy);
    if (proxy) {
      ++through_proxy;
      // In clock ticks (10 ms): one short trial may show none, all of them not.
      EXPECT_GE(t["proxy_cpu_us"].get<double>(), 0);
      proxy_cpu += t["proxy_cpu_us"].get<double>();
    }
  }
  EXPECT_EQ(through_proxy, 6);
  EXPECT_GT(proxy_cpu, 0) << "HAProxy forwarded 6 trials of 205 calls on no CPU";
  EXPECT_NE(r.out.find("The price of the path"), std::string::npos) << r.out;
  std::cout << r.out;
}

}  // namespace
}  // namespace rpclab::test
