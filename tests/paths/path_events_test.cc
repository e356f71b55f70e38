// Events for replicas: an event names the replica it strikes
// (target=replica:K), the runner hands it that replica's ServerControl and
// records which, and a path refuses, with the reason, an event it cannot
// strike (a replica it lacks, a pool where no proxy keeps one, a slow link
// without netem). HAProxy's runtime API's answer is read on captured
// output. No replica runs here (paths_e2e_test.cc runs them).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/paths/path_placement.h"
#include "harness/paths/proxy_process.h"
#include "harness/placement/local_placement.h"
#include "netem/config/fault_config.h"
#include "netem/config/fault_profile.h"
#include "netem/config/fault_events.h"
#include "netem/events/event_runner.h"
#include "netem/spec/spec_error.h"
#include "process/command_log.h"
#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

using netem::FaultEvent;
using netem::parse_event;

std::string error_of(const std::string& text) {
  try {
    parse_event(text);
  } catch (const netem::SpecError& e) {
    return e.what();
  }
  return "(accepted)";
}

void expect_error(const std::string& text, const std::string& fragment) {
  std::string e = error_of(text);
  EXPECT_NE(e.find(fragment), std::string::npos) << text << " -> " << e;
}

TEST(ReplicaEvents, AnEventNamesItsReplicaAndOneThatNamesNoneStrikesReplicaOne) {
  FaultEvent plain = parse_event("server-stall at=300ms for=600ms every=1200ms");
  EXPECT_EQ(plain.replica, 1);
  FaultEvent two = parse_event("server-stall at=300ms for=600ms every=1200ms target=replica:2");
  EXPECT_EQ(two.replica, 2);
  EXPECT_EQ(netem::summary(two), "server-stall at 300ms for 600ms every 1200ms on replica 2");
  // Records made before replicas existed hold no "replica": a spec that
  // names none writes none, so they still match.
  EXPECT_FALSE(nlohmann::json(plain).contains("replica"));
  nlohmann::json j = two;
  EXPECT_EQ(j["replica"], 2);
  EXPECT_EQ(j.get<FaultEvent>().replica, 2);
  EXPECT_EQ(nlohmann::json(j.get<FaultEvent>()), j);
  nlohmann::json bad = j;
  bad["replica"] = 0;
  EXPECT_THROW(bad.get<FaultEvent>(), netem::SpecError);
  bad["replica"] = "two";
  EXPECT_THROW(bad.get<FaultEvent>(), netem::SpecError);
}

TEST(ReplicaEvents, BadTargetsAndDelaysAreRefusedWithTheFix) {
  expect_error("server-crash at=1s for=1s target=replica:0", "give replica:K, K the replica's number from 1");
  expect_error("server-crash at=1s for=1s target=2", "give replica:K");
  expect_error("server-crash at=1s for=1s target=proxy-upstream", "e.g. target=replica:2");
  expect_error("server-crash at=1s for=1s target=replica:", "give replica:K");
  expect_error("partition at=1s for=1s target=replica:2", "not on one server: it takes no target=");
  expect_error("server-slow at=1s for=1s", "needs delay=DURATION");
  expect_error("server-crash at=1s for=1s delay=50ms", "takes no delay=");
  expect_error("server-out-of-pool at=1s", "needs for=DURATION");
  expect_error("server-reset at=1s for=1s", "is one instant: it takes no for=");
  FaultEvent slow = parse_event("server-slow at=1s for=1s delay=80ms target=replica:2");
  EXPECT_EQ(slow.delay_ms, 80);
  EXPECT_EQ(nlohmann::json(slow)["delay_ms"], 80);
  EXPECT_EQ(nlohmann::json(slow).get<FaultEvent>().delay_ms, 80);
  EXPECT_EQ(parse_event("server-reset at=1s target=replica:3").replica, 3);
}

TEST(ReplicaEvents, OneGroupOnTwoReplicasMayOverlapOnOneMayNot) {
  // Stalling replica 1 and crashing replica 2 at once acts on two servers.
  EXPECT_NO_THROW(netem::parse_profile("event = server-stall at=300ms for=600ms every=1200ms\n"
                                       "event = server-crash at=300ms for=500ms every=1200ms target=replica:2\n",
                                       "t"));
  EXPECT_THROW(netem::parse_profile("event = server-stall at=300ms for=600ms every=1200ms target=replica:2\n"
                                    "event = server-crash at=300ms for=500ms every=1200ms target=replica:2\n",
                                    "t"),
               netem::SpecError);
}

// A server that counts what was asked of it: which replica the runner
// handed each phase to.
class CountingServer : public netem::ServerControl {
 public:
  nlohmann::json kill() override { return {{"did", "kill"}}; }
  nlohmann::json restart() override { return {{"did", "restart"}}; }
  nlohmann::json pause() override {
    ++paused;
    return {{"did", "pause"}};
  }
  nlohmann::json resume() override {
    ++resumed;
    return {{"did", "resume"}};
  }
  int paused = 0, resumed = 0;
};

TEST(ReplicaEvents, TheRunnerStrikesTheNamedReplicaAndRecordsWhich) {
  test::TempDir dir;
  process::CommandLog log(dir.file("commands.log"));
  CountingServer one, two;
  netem::FaultSpec spec = netem::parse_profile("event = server-stall at=0ms for=10ms target=replica:2\n", "t");
  netem::EventRunner runner(spec, {nullptr, {&one, &two}}, log);
  auto t0 = netem::EventRunner::Clock::now();
  runner.poll(t0);
  runner.poll(t0 + std::chrono::milliseconds(20));
  runner.finish(t0 + std::chrono::milliseconds(30));
  EXPECT_EQ(one.paused + one.resumed, 0) << "replica 1 was struck by an event that names replica 2";
  EXPECT_EQ(two.paused, 1);
  EXPECT_EQ(two.resumed, 1);
  ASSERT_EQ(runner.record().size(), 1u);
  EXPECT_EQ(runner.record()[0]["replica"], 2);
  EXPECT_EQ(runner.record()[0]["start"]["did"], "pause");
  // A replica the trial does not have: refused before anything runs.
  EXPECT_THROW((netem::EventRunner(spec, netem::EventTargets{nullptr, {&one}}, log)), netem::SpecError);
}

TEST(ReplicaEvents, AServerThatCannotIsRefusedNotFaked) {
  CountingServer plain;
  EXPECT_THROW(plain.leave_pool(), std::runtime_error);
  EXPECT_THROW(plain.slow(50), std::runtime_error);
  EXPECT_THROW(plain.reset_connections(), std::runtime_error);
}

CellConfig path_cell(const std::string& path, const std::string& event, int replicas = 2) {
  CellConfig c;
  c.transport = "grpc";
  c.path = path;
  c.replicas = replicas;
  c.faults.events.push_back(parse_event(event));
  return c;
}

std::string refusal(const std::string& path, const std::string& event, bool netem = false) {
  return path_event_refusal(path_cell(path, event), *find_path(path), netem);
}

TEST(ReplicaEvents, APathRefusesWhatItCannotStrikeWithTheReason) {
  EXPECT_EQ(refusal("haproxy", "server-crash at=1s for=1s target=replica:2"), "");
  EXPECT_NE(refusal("haproxy", "server-crash at=1s for=1s target=replica:3").find("strikes replica 3: path haproxy "
                                                                                   "has 2 replica(s)"),
            std::string::npos);
  // direct has one server whatever --replicas says.
  EXPECT_NE(refusal("direct", "server-stall at=1s for=1s target=replica:2").find("has 1 replica(s)"),
            std::string::npos);
  EXPECT_EQ(refusal("haproxy-retry", "server-out-of-pool at=1s for=1s target=replica:2"), "");
  EXPECT_NE(refusal("grpc-round-robin", "server-out-of-pool at=1s for=1s").find("no proxy, so no pool"),
            std::string::npos);
  EXPECT_NE(refusal("direct", "server-out-of-pool at=1s for=1s").find("no proxy, so no pool"), std::string::npos);
  // Every proxy's pool is changed by its own mechanism (PoolControl).
  EXPECT_EQ(refusal("nginx", "server-out-of-pool at=1s for=1s"), "");
  EXPECT_EQ(refusal("caddy-retry", "server-out-of-pool at=1s for=1s target=replica:2"), "");
  EXPECT_NE(refusal("haproxy", "server-slow at=1s for=1s delay=50ms").find("needs netem"), std::string::npos);
  EXPECT_EQ(refusal("haproxy", "server-slow at=1s for=1s delay=50ms", true), "");
  EXPECT_EQ(refusal("haproxy", "server-reset at=1s target=replica:2"), "");
}

TEST(ReplicaEvents, ACellWithoutAPathHasOneServer) {
  CellConfig c = path_cell("", "server-crash at=1s for=1s target=replica:2", 1);
  EXPECT_NE(cannot_run_here(c, netem::Capabilities{}).find("a cell without a path has one server"), std::string::npos);
  CellConfig pool = path_cell("", "server-out-of-pool at=1s for=1s", 1);
  EXPECT_NE(cannot_run_here(pool, netem::Capabilities{}).find("give --paths"), std::string::npos);
}

// `show servers state replicas` from HAProxy 2.6.12, r2 just put in
// maintenance (srv_admin_state 1).
constexpr const char* kServersState =
    "1\n"
    "# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight "
    "srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state "
    "bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr "
    "srv_agent_addr srv_agent_port\n"
    "3 replicas 1 r1 127.0.0.1 2 0 1 1 2 1 0 2 0 0 0 0 - 18001 - 0 0 - - 0\n"
    "3 replicas 2 r2 127.0.0.1 0 1 1 1 0 1 0 0 0 0 0 0 - 18002 - 0 0 - - 0\n"
    "\n";

TEST(ReplicaEvents, HaproxysServerStateLineIsFoundByItsServerName) {
  EXPECT_EQ(haproxy_server_state(kServersState, 2),
            "3 replicas 2 r2 127.0.0.1 0 1 1 1 0 1 0 0 0 0 0 0 - 18002 - 0 0 - - 0");
  EXPECT_EQ(haproxy_server_state(kServersState, 1).substr(0, 13), "3 replicas 1 ");
  EXPECT_EQ(haproxy_server_state(kServersState, 3), "");
  EXPECT_EQ(haproxy_server_state("", 1), "");
}

TEST(ReplicaEvents, AMissingRuntimeSocketIsAClearError) {
  test::TempDir dir;
  process::CommandLog log(dir.file("commands.log"));
  try {
    haproxy_runtime_command(dir.path(), "show servers state", log);
    FAIL() << "no socket, and no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reach HAProxy's runtime API"), std::string::npos) << e.what();
  }
}

// nginx 1.22.1's error log after SIGHUP to its master (captured on this
// machine): the worker started on the new configuration is the answer.
constexpr const char* kNginxReload =
    "2026/12/07 02:14:27 [notice] 19383#19383: signal 1 (SIGHUP) received from 19334, reconfiguring\n"
    "2026/12/07 02:14:27 [notice] 19383#19383: reconfiguring\n"
    "2026/12/07 02:14:27 [notice] 19383#19383: using the \"epoll\" event method\n"
    "2026/12/07 02:14:27 [notice] 19383#19383: start worker processes\n"
    "2026/12/07 02:14:27 [notice] 19383#19383: start worker process 20429\n"
    "2026/12/07 02:14:27 [notice] 19404#19404: gracefully shutting down\n";

TEST(ReplicaEvents, NginxsReloadIsDoneWhenItsMasterStartsAWorker) {
  EXPECT_EQ(nginx_reloaded_worker(kNginxReload), "20429");
  // Before the master has got that far: not yet.
  std::string half(kNginxReload);
  EXPECT_EQ(nginx_reloaded_worker(half.substr(0, half.find("start worker processes"))), "");
  // A configuration it refuses: its own words, and it keeps the old workers.
  try {
    nginx_reloaded_worker("2026/12/07 02:14:27 [emerg] 19383#19383: invalid parameter \"dwn\" in nginx.conf:25\n");
    FAIL() << "an [emerg] line read as a reload";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid parameter \"dwn\""), std::string::npos) << e.what();
  }
}

// Caddy 2.6.2's admin API, GET /config/apps/http/servers after a reload
// that left 127.0.0.1:17002 out (captured on this machine).
TEST(ReplicaEvents, CaddysUpstreamsAreReadFromItsAdminApi) {
  auto config = nlohmann::json::parse(
      R"({"srv0":{"automatic_https":{"disable":true,"skip":["127.0.0.1"]},"listen":["127.0.0.1:17100"],)"
      R"("routes":[{"handle":[{"handler":"subroute","routes":[{"handle":[{"handler":"reverse_proxy",)"
      R"("load_balancing":{"selection_policy":{"policy":"round_robin"}},"upstreams":[{"dial":"127.0.0.1:17001"}]}]}]}],)"
      R"("match":[{"host":["127.0.0.1"]}],"terminal":true}]}})");
  EXPECT_EQ(caddy_upstreams(config), std::vector<std::string>{"127.0.0.1:17001"});
  EXPECT_TRUE(caddy_upstreams(nlohmann::json::object()).empty());
}

}  // namespace
}  // namespace rpclab::harness
