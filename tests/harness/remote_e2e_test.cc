// --server-host end to end: the server on a second "host" (a namespace with
// its own sshd) reached over a management link, the clients here, the RPC
// traffic on a separate data link.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "harness_e2e_util.h"
#include "netem/faults/remote_faults.h"
#include "ssh_hosts.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

class RemoteE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (SshHosts::unavailable().empty()) hosts_ = new SshHosts();
  }
  static void TearDownTestSuite() {
    delete hosts_;
    hosts_ = nullptr;
  }
  void SetUp() override {
    if (std::string why = SshHosts::unavailable(); !why.empty()) GTEST_SKIP() << why;
  }

  // rpclab dependability, one clean raw-udp cell, server on the ssh host.
  std::vector<std::string> dependability(const std::string& out, uint64_t calls,
                                         std::vector<std::string> extra = {}) const {
    std::vector<std::string> argv = {bin("rpclab"), "dependability", "--preset", "quick", "--tables", "clean",
                                     "--transports", "raw-udp", "--calls", std::to_string(calls), "--trials", "1",
                                     "--server-host", "root@" + hosts_->server_mgmt(), "--server-addr",
                                     hosts_->server_data(), "--ssh-config", hosts_->ssh_config(), "--out", out};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return hosts_->on_client(argv);
  }

  uint64_t server_data_rx_packets() const {
    ProcessResult r = run_program(hosts_->on_server({"ip", "-s", "-j", "link", "show", "dev", "data0"}));
    return json::parse(r.out).at(0).at("stats64").at("rx").at("packets").get<uint64_t>();
  }
  uint64_t client_data_rx_packets() const {
    ProcessResult r = run_program(hosts_->on_client({"ip", "-s", "-j", "link", "show", "dev", "data0"}));
    return json::parse(r.out).at(0).at("stats64").at("rx").at("packets").get<uint64_t>();
  }

  static SshHosts* hosts_;
};

SshHosts* RemoteE2E::hosts_ = nullptr;

// What --server-host will choose on the ssh hosts, which share this kernel.
netem::Choice remote_faults_here() {
  return netem::choose_remote_faults(run_program({"sh", "-c", netem::remote_netem_probe_line()}).out);
}

// The one cell of a run folder and its first trial; empty cell when there is not exactly one.
struct OneCell {
  json cell, trial;
};
OneCell one_cell(const std::string& run_dir) {
  auto records = read_jsonl(run_dir + "/results.jsonl");
  if (records.size() != 1) return {};
  return {records[0], read_jsonl(run_dir + "/trials.jsonl").at(0)};
}

std::vector<std::string> keys(const json& object);

// Every field a local run's cell and trial records have, the remote run's have too.
void expect_local_schema(const OneCell& remote, const std::string& local_dir) {
  OneCell local = one_cell(local_dir);
  ASSERT_TRUE(local.cell.is_object());
  for (const std::string& k : keys(local.cell)) EXPECT_TRUE(remote.cell.contains(k)) << "cell record lacks " << k;
  for (const std::string& k : keys(local.trial)) EXPECT_TRUE(remote.trial.contains(k)) << "trial lacks " << k;
}

// Runs and is not a zombie: an orphan may wait long for a PID 1 that reaps.
bool alive(long pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("State:", 0) == 0) return line.find('Z') == std::string::npos;
  return false;
}

std::vector<std::string> keys(const json& object) {
  std::vector<std::string> k;
  for (auto it = object.begin(); it != object.end(); ++it) k.push_back(it.key());
  return k;
}

TEST_F(RemoteE2E, DependabilityCellRunsItsServerOnTheSshHostWithDuplicationOnTheDataLink) {
  TempDir tmp;
  uint64_t data_before = server_data_rx_packets(), client_data_before = client_data_rx_packets();
  ProcessResult r = run_program(dependability(tmp.file("run"), 2000, {"--dup", "5", "--direction", "to-client"}), 120s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  OneCell run = one_cell(tmp.file("run"));
  const json &rec = run.cell, &trial = run.trial;
  ASSERT_TRUE(rec.is_object()) << "not one cell in " << tmp.file("run");
  ASSERT_EQ(rec.value("status", ""), "ok") << rec.dump();
  EXPECT_EQ(trial.at("calls").get<uint64_t>(), 2000u);
  const json& server = trial.at("hosts").at("server");
  EXPECT_EQ(server.value("address", ""), hosts_->server_data());
  EXPECT_FALSE(server.value("kernel", "").empty());
  EXPECT_GE(server.value("cpu_count", 0), 1);
  EXPECT_TRUE(server.at("clock_offset_ms").is_number());
  // The dead-man switch: a setsid sh (the ssh hosts are network namespaces, never systemd's), logged.
  EXPECT_NE(trial.at("remote_server").value("watchdog", "").find("setsid"), std::string::npos)
      << trial.at("remote_server").dump();
  EXPECT_FALSE(trial.at("remote_server").value("watchdog_reason", "").empty());
  // deps.sh's runtime list was asked of the remote's dpkg; this machine runs the server, so it has them all.
  const json& packages = server.at("packages");
  EXPECT_TRUE(packages.value("checked", false)) << packages.dump();
  EXPECT_TRUE(packages.at("missing_required").empty()) << packages.dump();
  EXPECT_NE(packages.at("installed").dump().find("libtirpc3"), std::string::npos) << packages.dump();
  // Same kernel, same clock here: the offset is within its own round trip.
  EXPECT_LT(std::abs(server.at("clock_offset_ms").get<double>()), server.at("clock_rtt_ms").get<double>() + 1.0);
  // The RPC traffic took the data link: 2,000 calls, at least as many datagrams in.
  EXPECT_GE(server_data_rx_packets() - data_before, 2000u);
  // The faults: on the server's data interface, by nftables, measured by its counters.
  const json& faults = trial.at("faults");
  // The remote's kernel is this one: netem there only if it has sch_netem and ifb (not here, nor in CI).
  EXPECT_EQ(faults.value("backend", ""), netem::backend_name(remote_faults_here().kind)) << faults.dump();
  EXPECT_EQ(server.at("fault_backend").value("kind", ""), faults.value("backend", "")) << server.dump();
  EXPECT_FALSE(server.at("fault_backend").value("reason", "").empty());
  EXPECT_NE(faults.value("backend_reason", "").find("data0"), std::string::npos) << faults.dump();
  uint64_t dups = faults.at("counters_after").at("to_client").at("duplicated").get<uint64_t>();
  uint64_t offered = faults.at("counters_after").at("to_client").at("offered").get<uint64_t>();
  EXPECT_GT(dups, 0u);
  EXPECT_GT(faults.at("measured_dup_pct").get<double>(), 2.0);
  EXPECT_LT(faults.at("measured_dup_pct").get<double>(), 8.0);
  // Every copy reached the clients' host over the data link.
  EXPECT_GE(client_data_rx_packets() - client_data_before, offered + dups);
  EXPECT_NE(run_program(hosts_->on_server({"nft", "list", "table", "netdev", "rpclab"})).exit_code, 0)
      << "the faults stay on the remote after the run";
  // The server's files came back, and nothing of the trial stays there.
  EXPECT_EQ(access((tmp.file("run/") + "cells").c_str(), F_OK), 0);
  std::string run_id = json::parse(std::ifstream(tmp.file("run/metadata.json"))).value("run_id", "");
  ProcessResult left = run_program({"sh", "-c", "ls /tmp/rpclab-remote/" + run_id + " 2>/dev/null"});
  EXPECT_EQ(left.out, "") << "left on the remote: " << left.out;
  ProcessResult log = run_program({"grep", "-c", "ssh ", tmp.file("run/commands.log")});
  EXPECT_GT(std::stoi(log.out), 3) << "every remote command is in commands.log";
  ProcessResult armed = run_program({"grep", "-c", "dead-man switch on .*: setsid sh", tmp.file("run/commands.log")});
  EXPECT_EQ(armed.out, "1\n") << "commands.log says which watchdog was armed, once for the one trial";

  // The same schema as a local run: every field a local record has.
  ProcessResult local = run_program({bin("rpclab"), "dependability", "--preset", "quick", "--tables", "clean",
                                     "--transports", "raw-udp", "--calls", "200", "--trials", "1", "--topology",
                                     "loopback", "--out", tmp.file("local")}, 120s);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  expect_local_schema(run, tmp.file("local"));
  std::printf("remote dependability cell: %s: %s calls, classes %s, dup measured %.2f%% (%llu copies of %llu), "
              "clock offset %.3f ms (rtt %.3f ms), server kernel %s\n", rec.value("label", "").c_str(),
              trial.at("calls").dump().c_str(), trial.at("classes").dump().c_str(),
              faults.at("measured_dup_pct").get<double>(), static_cast<unsigned long long>(dups),
              static_cast<unsigned long long>(offered), server.at("clock_offset_ms").get<double>(),
              server.at("clock_rtt_ms").get<double>(), server.value("kernel", "").c_str());
  std::printf("remote host checks: packages %zu installed, missing required %s, optional %s; faults by %s (%s); "
              "watchdog %s (%s)\n", packages.at("installed").size(), packages.at("missing_required").dump().c_str(),
              packages.at("missing_optional").dump().c_str(), faults.value("backend", "").c_str(),
              server.at("fault_backend").value("reason", "").c_str(),
              trial.at("remote_server").value("watchdog", "").c_str(),
              trial.at("remote_server").value("watchdog_reason", "").c_str());
}

TEST_F(RemoteE2E, SpeedCellRunsItsServerOnTheSshHost) {
  TempDir tmp;
  std::vector<std::string> cell = {"speed", "--preset", "quick", "--transports", "raw-udp", "--sizes", "12",
                                   "--clients", "1", "--connect", "persistent", "--trials", "2",
                                   "--calls-per-trial", "200", "--no-calibrate"};
  std::vector<std::string> remote = {bin("rpclab")};
  remote.insert(remote.end(), cell.begin(), cell.end());
  remote.insert(remote.end(), {"--server-host", "root@" + hosts_->server_mgmt(), "--server-addr",
                               hosts_->server_data(), "--ssh-config", hosts_->ssh_config(), "--out", tmp.file("run")});
  ProcessResult r = run_program(hosts_->on_client(remote), 120s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  OneCell run = one_cell(tmp.file("run"));
  const json &rec = run.cell, &trial = run.trial;
  ASSERT_TRUE(rec.is_object()) << "not one cell in " << tmp.file("run");
  ASSERT_EQ(rec.value("status", ""), "ok") << rec.dump();
  EXPECT_EQ(trial.at("hosts").at("server").value("address", ""), hosts_->server_data());
  EXPECT_GE(trial.value("calls_served", 0.0), 200.0) << "the remote server's own count, by SIGUSR1 there";

  std::vector<std::string> local = {bin("rpclab")};
  local.insert(local.end(), cell.begin(), cell.end());
  local.insert(local.end(), {"--topologies", "loopback", "--out", tmp.file("local")});
  ProcessResult l = run_program(local, 120s);
  ASSERT_EQ(l.exit_code, 0) << l.err;
  expect_local_schema(run, tmp.file("local"));
  std::printf("remote speed cell: %s: p50 %s us, p99 %s us, %s calls/s (local loopback p50 %s us)\n",
              rec.value("label", "").c_str(), rec.value("p50_us", json()).dump().c_str(),
              rec.value("p99_us", json()).dump().c_str(), rec.value("calls_per_s", json()).dump().c_str(),
              one_cell(tmp.file("local")).cell.value("p50_us", json()).dump().c_str());
}

// --client-host: the clients on the other "host" (the client namespace's
// own sshd), started and collected over ssh; the controller only drives.
TEST_F(RemoteE2E, DependabilityCellRunsItsClientsOnTheClientHostToo) {
  TempDir tmp;
  ProcessResult r = run_program(dependability(tmp.file("run"), 1000, {"--client-host", "root@198.18.1.1", "--dup",
                                                                        "5", "--direction", "to-client"}), 120s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  OneCell run = one_cell(tmp.file("run"));
  ASSERT_TRUE(run.cell.is_object()) << "not one cell in " << tmp.file("run");
  ASSERT_EQ(run.cell.value("status", ""), "ok") << run.cell.dump();
  EXPECT_EQ(run.trial.at("calls").get<uint64_t>(), 1000u) << "the clients' records came back and were joined";
  const json& clients = run.trial.at("hosts").at("clients");
  EXPECT_EQ(clients.value("ssh", ""), "root@198.18.1.1") << clients.dump();
  EXPECT_EQ(clients.value("runs", ""), "rpclab-client");
  EXPECT_TRUE(clients.at("clock_offset_ms").is_number());
  EXPECT_TRUE(clients.at("packages").value("checked", false));
  EXPECT_EQ(run.trial.at("hosts").at("server").value("runs", ""), "rpclab-server");
  // The faults face the client host's data address: still the server's data0.
  EXPECT_NE(run.trial.at("faults").value("backend_reason", "").find("data0"), std::string::npos);
  EXPECT_GT(run.trial.at("faults").at("counters_after").at("to_client").at("duplicated").get<uint64_t>(), 0u);
  json meta = json::parse(std::ifstream(tmp.file("run/metadata.json")));
  EXPECT_EQ(meta.at("client_host").value("runs", ""), "rpclab-client");
  ProcessResult started = run_program({"grep", "-c", "198.18.1.1 .*rpclab-client --transport", tmp.file("run/commands.log")});
  EXPECT_EQ(started.out, "1\n") << "the one client was started over ssh on the client host";
  ProcessResult left = run_program({"sh", "-c", "ls /tmp/rpclab-remote/" + meta.value("run_id", "") + " 2>/dev/null"});
  EXPECT_EQ(left.out, "") << "left on the hosts: " << left.out;
  std::printf("remote clients cell: %s: %s calls, classes %s, clients on %s (clock offset %.3f ms), server on %s, "
              "phases %s\n", run.cell.value("label", "").c_str(), run.trial.at("calls").dump().c_str(),
              run.trial.at("classes").dump().c_str(), clients.value("ssh", "").c_str(),
              clients.at("clock_offset_ms").get<double>(),
              run.trial.at("hosts").at("server").value("ssh", "").c_str(), run.trial.at("phases_s").dump().c_str());
}

// One clear message, exit non-zero, and no results, for each of these.
void expect_refused(const ProcessResult& r, const std::string& words, const std::string& out_dir) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  EXPECT_NE(access((out_dir + "/results.jsonl").c_str(), F_OK), 0) << "no cell may run";
  std::printf("refused (exit %d): %s", r.exit_code, r.err.substr(0, r.err.find('\n') + 1).c_str());
}

TEST_F(RemoteE2E, BadInputIsOneClearMessageBeforeAnythingRuns) {
  TempDir tmp;
  std::vector<std::string> unreachable = dependability(tmp.file("a"), 10);
  unreachable[std::find(unreachable.begin(), unreachable.end(), "--server-host") - unreachable.begin() + 1] =
      "root@198.18.1.3";
  expect_refused(run_program(unreachable, 60s), "cannot reach root@198.18.1.3", tmp.file("a"));
  std::vector<std::string> wrong_key = dependability(tmp.file("b"), 10);
  *(std::find(wrong_key.begin(), wrong_key.end(), hosts_->ssh_config())) = hosts_->wrong_key_config();
  expect_refused(run_program(wrong_key, 60s), "refused this key", tmp.file("b"));
  expect_refused(run_program(dependability(tmp.file("c"), 10, {"--remote-bin-dir", "/nonexistent"}), 60s),
                 "has no rpclab-server it can run at /nonexistent", tmp.file("c"));
  expect_refused(run_program(dependability(tmp.file("h"), 10, {"--max-clock-offset", "0"}), 60s),
                 "ms off this machine's (more than 0 ms)", tmp.file("h"));
  if (remote_faults_here().kind == netem::BackendKind::kNftables)  // netem there duplicates requests too
    expect_refused(run_program(dependability(tmp.file("d"), 10, {"--dup", "5"}), 60s),
                   "give --direction to-client for --dup", tmp.file("d"));
  expect_refused(run_program({bin("rpclab"), "speed", "--preset", "quick", "--server-host", "root@198.18.1.2",
                              "--client-host", "root@198.18.1.1", "--out", tmp.file("k")}, 60s),
                 "--client-host runs dependability cells only yet", tmp.file("k"));
  expect_refused(run_program(dependability(tmp.file("i"), 10, {"--profile", "partition"}), 60s),
                 "timed events", tmp.file("i"));
  if (remote_faults_here().kind == netem::BackendKind::kNftables)  // asked for, and not there: said, not swapped
    expect_refused(run_program(dependability(tmp.file("j"), 10, {"--dup", "5", "--direction", "to-client",
                                                                  "--faults-backend", "netem"}), 60s),
                   "--faults-backend netem is not there on root@", tmp.file("j"));
  std::vector<std::string> dup = {"--dup", "5", "--direction", "to-client"};
  std::vector<std::string> unknown_iface = dup;
  unknown_iface.insert(unknown_iface.end(), {"--server-iface", "nope0"});
  expect_refused(run_program(dependability(tmp.file("e"), 10, unknown_iface), 60s), "has no interface 'nope0'",
                 tmp.file("e"));
  // The refusal for the management link, named or found by the route.
  std::vector<std::string> mgmt = dup;
  mgmt.insert(mgmt.end(), {"--server-iface", "mgmt0"});
  expect_refused(run_program(dependability(tmp.file("f"), 10, mgmt), 60s), "carries the ssh session on mgmt0",
                 tmp.file("f"));
  std::vector<std::string> over_mgmt = dependability(tmp.file("g"), 10, dup);
  *(std::find(over_mgmt.begin(), over_mgmt.end(), hosts_->server_data())) = hosts_->server_mgmt();
  expect_refused(run_program(over_mgmt, 60s), "carries the ssh session on mgmt0", tmp.file("g"));
  EXPECT_NE(run_program(hosts_->on_server({"nft", "list", "table", "netdev", "rpclab"})).exit_code, 0)
      << "a refusal comes before any fault";
}

// The dead-man switch: a controller killed mid-cell leaves its server
// running there; the remote's own watchdog kills it at the deadline.
TEST_F(RemoteE2E, KilledControllerLeavesTheRemoteCleanAfterTheWatchdogDeadline) {
  TempDir tmp;
  constexpr int kLimit = 10;  // the shortest --cell-time-limit; the watchdog adds 5 s
  Child controller(dependability(tmp.file("run"), 100000000, {"--cell-time-limit", std::to_string(kLimit), "--dup",
                                                              "5", "--direction", "to-client"}),
                   tmp.file("controller.log"));
  std::string run_id;
  ASSERT_TRUE(wait_until([&] {
    std::ifstream meta(tmp.file("run/metadata.json"));
    if (!meta) return false;
    run_id = json::parse(meta, nullptr, false).value("run_id", "");
    return !run_id.empty();
  }, 30s));
  std::string ready = "/tmp/rpclab-remote/" + run_id + "/cell-1-trial-1/server.ready";
  auto faults_on = [&] {
    return run_program(hosts_->on_server({"nft", "list", "table", "netdev", "rpclab"})).exit_code == 0;
  };
  ASSERT_TRUE(wait_until([&] { return access(ready.c_str(), F_OK) == 0 && faults_on(); }, 30s))
      << "the remote server never started with its faults";
  json r = json::parse(std::ifstream(ready));
  long pid = r.at("pid").get<long>();
  ASSERT_EQ(kill(static_cast<pid_t>(controller.pid()), SIGKILL), 0);
  auto killed = std::chrono::steady_clock::now();
  std::string lease = "/tmp/rpclab-remote/" + run_id + "/cell-1-trial-1/lease";
  bool clean = wait_until([&] {
    return !alive(pid) && access(lease.c_str(), F_OK) != 0 && !faults_on();
  },
                          std::chrono::seconds(kLimit + 5 + 20), 50ms);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  EXPECT_TRUE(clean) << "the remote server " << pid << " still runs " << seconds << " s after the kill";
  std::printf("dead-man switch: kill-to-clean %.2f s (watchdog deadline %d s after the server started)\n", seconds,
              kLimit + 5);
  EXPECT_LE(seconds, kLimit + 5 + 5.0);
  run_program({"rm", "-rf", "/tmp/rpclab-remote/" + run_id});
}

}  // namespace
}  // namespace rpclab::test
