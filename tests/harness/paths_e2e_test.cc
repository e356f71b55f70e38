// `rpclab dependability --preset paths`, in small: real HAProxy 2.6 before
// two real replicas, one SIGSTOPped past the proxy's upstream timeout.
// The independent check of issue 38: the record blames some executions on
// the proxy's retry; this test reads HAProxy's own log (not through
// harness/paths/proxy_log.h) and the replicas' own ledgers, and finds, for
// every call that ran on both replicas, the log line of its request with
// the retry that sent it to the second one.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>

#include "common/atomic_file.h"
#include "harness_e2e_util.h"
#include "netem/topology/capabilities.h"
#include "client/call_record.h"
#include "common/sanitizer.h"
#include "server/journal_reader.h"
#include "server/ledger.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;
using Call = std::pair<uint32_t, uint32_t>;  // (client, seq)

std::string why_not_here() {
  if (!is_root()) return "a path's replicas and proxy live in network namespaces: the test needs root";
  if (!netem::probe_capabilities().netns) return "this kernel or container cannot create network namespaces";
  if (!fs::exists("/usr/sbin/haproxy")) return "haproxy is not installed (tools/deps.sh build installs it)";
  return "";
}

// The JSON-RPC request HAProxy logged as hex: {"client_id":C, ..., "seq":S}.
std::optional<Call> call_in_body(const std::string& hex) {
  std::string text;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) text += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  static const std::regex client(R"re("client_id"\s*:\s*(\d+))re"), seq(R"re("seq"\s*:\s*(\d+))re");
  std::smatch c, s;
  if (!std::regex_search(text, c, client) || !std::regex_search(text, s, seq)) return std::nullopt;
  return Call{static_cast<uint32_t>(std::stoul(c[1])), static_cast<uint32_t>(std::stoul(s[1]))};
}

// Each call's requests in HAProxy's log with the retries it took ("+1":
// redispatched once), as the template's log-format writes them.
std::map<Call, std::vector<int>> retries_in_log(const std::string& path) {
  std::map<Call, std::vector<int>> out;
  std::ifstream in(path);
  static const std::regex line(R"(rpclab-request .* retries=\+?(\d+) .* body=([0-9A-Fa-f]+))");
  std::smatch m;
  for (std::string l; std::getline(in, l);)
    if (std::regex_search(l, m, line))
      if (auto call = call_in_body(m[2])) out[*call].push_back(std::stoi(m[1]));
  return out;
}

std::set<Call> executed(const std::string& ledger) {
  std::set<Call> calls;
  Ledger l = Ledger::read_file(ledger);
  for (const auto& [client, entry] : l.clients())
    for (const auto& [chunk, counts] : entry.chunks)
      for (uint32_t i = 0; i < Ledger::kChunkCalls; ++i)
        if ((*counts)[i]) calls.insert({client, chunk * Ledger::kChunkCalls + i});
  return calls;
}

TEST(PathsE2E, EveryExecutionBlamedOnTheProxyIsARetryInItsOwnLog) {
  if (std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  // HAProxy re-sending on every retryable error, JSON-RPC over HTTP/1.1
  // (its body is text, so the log ties a line to a call), 8 clients so
  // that each stall of replica 1 holds several requests it has read.
  ProcessResult r = run_program({bin("rpclab"), "dependability", "--preset", "paths", "--tables", "paths",
                                 "--transports", "jsonrpc", "--paths", "haproxy-retry-all", "--profile",
                                 dir.plant("stall.profile", "event = server-stall at=300ms for=600ms every=1200ms\n"),
                                 "--clients", "8", "--trials", "3", "--out", dir.file("run"), "--results-root",
                                 dir.file("results")},
                                240s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto trials = read_jsonl(dir.file("run/trials.jsonl"));
  ASSERT_EQ(trials.size(), 3u);
  uint64_t blamed = 0, found = 0;
  for (const json& t : trials) {
    SCOPED_TRACE(t["label"].get<std::string>() + " trial " + std::to_string(t["trial"].get<int>()));
    ASSERT_EQ(t["status"], "ok") << t["reason"];
    fs::path folder;
    std::string trial = "trial-" + std::to_string(t["trial"].get<int>());
    for (const auto& cell : fs::directory_iterator(dir.file("run/cells")))
      if (fs::exists(cell.path() / trial / "haproxy.cfg")) folder = cell.path() / trial;
    ASSERT_FALSE(folder.empty()) << "no trial folder with HAProxy's configuration";
    std::set<Call> one = executed(folder / "replica-1" / "ledger.bin"), two = executed(folder / "replica-2" / "ledger.bin");
    std::map<Call, std::vector<int>> log = retries_in_log(folder / "proxy.log");
    uint64_t proxy_retry = t["causes"].value("proxy_retry", uint64_t{0});
    blamed += proxy_retry;
    uint64_t on_both = 0;
    for (const Call& c : one) {
      if (!two.count(c)) continue;
      ++on_both;
      auto it = log.find(c);
      ASSERT_NE(it, log.end()) << "client " << c.first << " seq " << c.second
                               << " ran on both replicas, and HAProxy's log has no request of it";
      bool retried = std::any_of(it->second.begin(), it->second.end(), [](int n) { return n > 0; });
      EXPECT_TRUE(retried) << "client " << c.first << " seq " << c.second
                           << " ran on both replicas, and HAProxy's log shows it sent once";
      found += retried;
    }
    // Every execution the record blames on the proxy is one of those.
    EXPECT_LE(proxy_retry, on_both);
    EXPECT_EQ(t["path"]["calls_on_several_replicas"].get<uint64_t>(), on_both);
  }
  std::cout << "paths e2e: " << blamed << " executions blamed on HAProxy's retry, " << found
            << " calls on both replicas with a retried request in its log\n";
  EXPECT_GT(blamed, 0u) << "3 trials of stalls past HAProxy's upstream timeout and no call ran twice: a retry-on "
                           "all-retryable-errors path that never re-sends is not what this row says it is";
  EXPECT_GE(found, blamed);
}

// Events for replicas: one short trial (JSON-RPC through HAProxy's
// default path, two replicas) whose events all name replica 2. Each struck
// replica 2 and not replica 1, by the evidence each leaves where rpclab
// does not write it: the kernel's count of the connections ss -K closed in
// replica 2's namespace, HAProxy's own words and server state for r2, and
// a second life (server-2.log) in replica 2's folder only.
TEST(PathsE2E, EventsThatNameReplicaTwoStrikeReplicaTwoOnly) {
  if (std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  std::string profile = dir.plant("replica-2.profile",
                                  "event = server-reset at=300ms target=replica:2\n"
                                  "event = server-out-of-pool at=600ms for=500ms target=replica:2\n"
                                  "event = server-crash at=1400ms for=300ms target=replica:2\n");
  ProcessResult r = run_program({bin("rpclab"), "dependability", "--preset", "paths-events", "--transports", "jsonrpc",
                                 "--paths", "haproxy", "--profile", profile, "--duration", "2", "--trials", "1", "--out",
                                 dir.file("run"), "--results-root", dir.file("results")},
                                120s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto trials = read_jsonl(dir.file("run/trials.jsonl"));
  ASSERT_EQ(trials.size(), 1u);
  const json& t = trials[0];
  ASSERT_EQ(t["status"], "ok") << t["reason"];
  ASSERT_EQ(t["events"].size(), 3u) << t["events"].dump();
  for (const json& e : t["events"]) {
    SCOPED_TRACE(e.dump());
    EXPECT_EQ(e["replica"], 2);
    const std::string kind = e["kind"];
    if (kind == "server-reset") {
      EXPECT_GT(e["start"]["closed"].get<uint64_t>(), 0u) << "replica 2 had HAProxy's connections open";
      EXPECT_NE(e["start"]["netns"].get<std::string>().find("-r2"), std::string::npos);
    } else if (kind == "server-out-of-pool") {
      EXPECT_EQ(e["start"]["admin_state"], 1) << "HAProxy reports r2 in forced maintenance";
      EXPECT_EQ(e["end"]["admin_state"], 0) << "and back in the pool at the end";
    } else {
      EXPECT_EQ(kind, "server-crash");
      EXPECT_EQ(e["start"]["signal"], "SIGKILL");
    }
  }
  fs::path folder;
  for (const auto& cell : fs::directory_iterator(dir.file("run/cells")))
    if (fs::exists(cell.path() / "trial-1" / "haproxy.cfg")) folder = cell.path() / "trial-1";
  ASSERT_FALSE(folder.empty());
  EXPECT_TRUE(fs::exists(folder / "replica-2" / "server-2.log")) << "replica 2 was restarted after its crash";
  EXPECT_FALSE(fs::exists(folder / "replica-1" / "server-2.log")) << "replica 1 was never crashed";
  std::string haproxy = read_whole_file(folder / "proxy.err") + read_whole_file(folder / "proxy.log");
  EXPECT_NE(haproxy.find("replicas/r2 is going DOWN for maintenance"), std::string::npos) << haproxy;
  EXPECT_EQ(haproxy.find("replicas/r1 is going DOWN for maintenance"), std::string::npos) << haproxy;
  // Both replicas served: an event on replica 2 did not stop the trial.
  EXPECT_FALSE(executed(folder / "replica-1" / "ledger.bin").empty());
  EXPECT_FALSE(executed(folder / "replica-2" / "ledger.bin").empty());
}

// One event's trials of the paths-events preset, `clients` clients, on
// one transport and path: trials.jsonl's lines, or none after a failure.
std::vector<json> run_event_trials(const TempDir& dir, const std::string& transport, const std::string& path,
                                   const std::string& event, const std::string& clients) {
  std::string profile = dir.plant("event.profile", "event = " + event + "\n");
  ProcessResult r = run_program({bin("rpclab"), "dependability", "--preset", "paths-events", "--tables", "paths-events",
                                 "--transports", transport, "--paths", path, "--profile", profile, "--clients", clients,
                                 "--trials", "3", "--out", dir.file("run"), "--results-root", dir.file("results")},
                                180s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return {};
  return read_jsonl(dir.file("run/trials.jsonl"));
}

// The folder of trial `t` in a run's cells: the one holding `marker`
// (the proxy's configuration); empty when none does.
fs::path trial_folder(const std::string& run, const json& t, const std::string& marker) {
  std::string trial = "trial-" + std::to_string(t["trial"].get<int>());
  for (const auto& cell : fs::directory_iterator(fs::path(run) / "cells"))
    if (fs::exists(cell.path() / trial / marker)) return cell.path() / trial;
  return {};
}

// Every call of every client record in `folder` was made once by the application.
void expect_one_attempt_each(const fs::path& folder) {
  for (const auto& record : fs::directory_iterator(folder)) {
    if (record.path().extension() != ".rec") continue;
    for (const CallEntry& c : CallRecord::read_file(record.path()).calls) EXPECT_EQ(c.attempts, 1u);
  }
}

// Caddy's drain (its reload) closes kept client connections, some after
// the request went to the replica and before the answer came back; libcurl
// under the JSON-RPC client sends such a request again on a new connection.
// The record calls the second run on the same replica library-retry. The
// evidence each leaves where rpclab does not decide it: the replica's
// journal holds the call twice on two of its connections, the client's
// record one attempt, and Caddy's own access log requests it closed with
// no answer (status 0; its lines carry no body, so not which calls).
TEST(PathsE2E, ACallRunTwiceOnOneReplicaBehindCaddysDrainIsCurlsResend) {
  if (std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  if (!fs::exists("/usr/bin/caddy")) GTEST_SKIP() << "caddy is not installed (tools/deps.sh build installs it)";
  // Instrumented, the clients make about a third of the calls, and fewer
  // are in flight at a drain: 0 and 1 such resends in two runs of 3
  // trials (2026-12-07), too few to test; the memory of this path is the
  // same as the HAProxy test's below, which the sanitizer stage runs.
  if (RPCLAB_ASAN)
    GTEST_SKIP() << "sanitizer build: too few curl resends behind Caddy's drain to test in 3 trials; the plain build "
                    "runs it";
  TempDir dir;
  auto trials = run_event_trials(dir, "jsonrpc", "caddy", "server-out-of-pool at=200ms for=300ms every=500ms", "16");
  ASSERT_EQ(trials.size(), 3u);
  uint64_t blamed = 0;
  for (const json& t : trials) {
    SCOPED_TRACE("trial " + std::to_string(t["trial"].get<int>()));
    ASSERT_EQ(t["status"], "ok") << t["reason"];
    fs::path folder = trial_folder(dir.file("run"), t, "Caddyfile");
    ASSERT_FALSE(folder.empty()) << "no trial folder with Caddy's configuration";

    // Calls run twice on one replica over two of its connections.
    std::vector<Call> twice_on_one;
    for (const char* replica : {"replica-1", "replica-2"}) {
      std::map<Call, std::vector<journal::Record>> runs;
      for (const journal::Record& rec : read_journal_records(folder / replica / "journal.bin"))
        if (rec.kind == static_cast<uint8_t>(journal::RecordKind::kExecuted)) runs[{rec.client_id, rec.seq}].push_back(rec);
      for (const auto& [call, rs] : runs)
        for (size_t i = 1; i < rs.size(); ++i)
          if (rs[i].connection != rs[i - 1].connection) twice_on_one.push_back(call);
    }
    uint64_t library_retry = t["causes"].value("library_retry", uint64_t{0});
    EXPECT_EQ(library_retry, twice_on_one.size()) << t["causes"].dump();
    blamed += library_retry;

    // Caddy's access log: requests it answered with no response (status 0).
    // Its lines carry no body, so they cannot be tied to calls; a trial
    // with a resend must have at least one.
    uint64_t unanswered = 0;
    std::ifstream log(folder / "proxy.log");
    for (std::string line; std::getline(log, line);) {
      json j = json::parse(line, nullptr, false);
      unanswered += j.is_object() && j.value("msg", "") == "handled request" && j.value("status", -1) == 0;
    }
    if (!twice_on_one.empty()) {
      EXPECT_GT(unanswered, 0u) << twice_on_one.size() << " calls ran twice on one replica, and Caddy's log shows "
                                << "no request it closed without an answer";
    }
    expect_one_attempt_each(folder);
  }
  std::cout << "paths e2e: " << blamed << " executions that curl sent again behind Caddy's drain\n";
  EXPECT_GT(blamed, 0u) << "3 trials of Caddy draining replica 1 every 500 ms under 16 clients and curl never "
                           "re-sent a request: five runs of this test (2026-12-07) had 7 to 15";
}

// HAProxy's resets of replica 1's connections: a request that replica 1
// ran and could not answer is closed on the client's side with no answer
// and no log line ("so that the client retries": abort_keep_alive in its
// http_wait_for_response), and curl under the XML-RPC client sends it
// again, to whichever replica HAProxy picks. Checked where rpclab does not
// decide it: every call the replicas' ledgers ran more than once has fewer
// requests in HAProxy's own log (read here, not through proxy_log.h) than
// runs, none of them retried, and one attempt in its client's record; the
// record's library_retry counts exactly their extra runs.
TEST(PathsE2E, ACallRunMoreOftenThanHaproxyLoggedItAfterAResetIsCurlsResend) {
  if (std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  auto trials = run_event_trials(dir, "xmlrpc", "haproxy", "server-reset at=200ms every=300ms", "16");
  ASSERT_EQ(trials.size(), 3u);
  uint64_t blamed = 0;
  for (const json& t : trials) {
    SCOPED_TRACE("trial " + std::to_string(t["trial"].get<int>()));
    ASSERT_EQ(t["status"], "ok") << t["reason"];
    fs::path folder = trial_folder(dir.file("run"), t, "haproxy.cfg");
    ASSERT_FALSE(folder.empty()) << "no trial folder with HAProxy's configuration";
    std::map<Call, uint32_t> runs;
    for (const char* replica : {"replica-1", "replica-2"}) {
      Ledger ledger = Ledger::read_file(folder / replica / "ledger.bin");
      for (const Call& c : executed(folder / replica / "ledger.bin")) runs[c] += ledger.count(c.first, c.second);
    }
    std::map<Call, std::vector<int>> log = retries_in_log(folder / "proxy.log");
    uint64_t extra = 0;
    for (const auto& [call, n] : runs) {
      if (n < 2) continue;
      SCOPED_TRACE("client " + std::to_string(call.first) + " seq " + std::to_string(call.second));
      const std::vector<int>& logged = log[call];
      EXPECT_LT(logged.size(), n) << "HAProxy logged every run of it";
      EXPECT_TRUE(std::all_of(logged.begin(), logged.end(), [](int retries) { return retries == 0; }));
      extra += n - 1;
    }
    EXPECT_EQ(t["causes"].value("library_retry", uint64_t{0}), extra) << t["causes"].dump();
    blamed += extra;
    expect_one_attempt_each(folder);
  }
  std::cout << "paths e2e: " << blamed << " executions that curl sent again after HAProxy's silent close\n";
  EXPECT_GT(blamed, 0u) << "3 trials of resets every 300 ms under 16 clients and curl never re-sent a request: "
                           "a run of this cell (2026-12-07) had 46";
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// server-out-of-pool on nginx and Caddy, by the operator's own mechanism
// (a rewritten upstream and SIGHUP; a Caddyfile reloaded through the admin
// API): one run of two cells, JSON-RPC through each proxy's default path,
// replica 2 out for 500 ms of a 2 s trial (about 7 s for both). The
// evidence is read where rpclab does not write it: nginx's error log says
// its master reconfigured and started a worker, and its access log
// (worker=$pid on each line) shows that worker sent nothing to replica 2
// and that the worker after the return did; Caddy's admin API listed
// replica 1 alone while it was out, and its own log shows both loads.
TEST(PathsE2E, OutOfPoolOnNginxAndCaddyIsTheirOwnReload) {
  if (std::string why = why_not_here(); !why.empty()) GTEST_SKIP() << why;
  for (const char* p : {"/usr/sbin/nginx", "/usr/bin/caddy"})
    if (!fs::exists(p)) GTEST_SKIP() << p << " is not installed (tools/deps.sh build installs it)";
  TempDir dir;
  std::string profile = dir.plant("out-of-pool.profile", "event = server-out-of-pool at=600ms for=500ms target=replica:2\n");
  ProcessResult r = run_program({bin("rpclab"), "dependability", "--preset", "paths-events", "--transports", "jsonrpc",
                                 "--paths", "nginx,caddy", "--profile", profile, "--duration", "2", "--trials", "1",
                                 "--out", dir.file("run"), "--results-root", dir.file("results")},
                                120s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto trials = read_jsonl(dir.file("run/trials.jsonl"));
  ASSERT_EQ(trials.size(), 2u);
  std::set<std::string> seen;
  for (const json& t : trials) {
    ASSERT_EQ(t["status"], "ok") << t["reason"];
    const std::string path = t["path"]["path"];
    SCOPED_TRACE(path);
    seen.insert(path);
    ASSERT_EQ(t["events"].size(), 1u) << t["events"].dump();
    const json& e = t["events"][0];
    EXPECT_EQ(e["kind"], "server-out-of-pool");
    EXPECT_EQ(e["replica"], 2);
    fs::path folder = fs::path(t["trial_dir"].get<std::string>());
    if (!folder.is_absolute()) folder = fs::path(dir.file("run")) / folder;
    std::string r2 = e["start"]["command"];  // "server ADDR:PORT down;" / "reverse_proxy without ADDR:PORT"
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r2, m, std::regex(R"((\d+\.\d+\.\d+\.\d+:\d+))"))) << r2;
    r2 = m[1];
    if (path == "nginx") {
      std::string errors = read_whole_file(folder / "proxy-error.log");
      int out_worker = e["start"]["worker_pid"], back_worker = e["end"]["worker_pid"];
      EXPECT_NE(errors.find("start worker process " + std::to_string(out_worker)), std::string::npos) << errors;
      EXPECT_NE(errors.find("start worker process " + std::to_string(back_worker)), std::string::npos) << errors;
      EXPECT_EQ(occurrences(errors, "signal 1 (SIGHUP) received"), 2u) << "nginx's master: two reloads";
      // nginx's access log, read here by hand: each line's worker and upstreams.
      std::map<int, std::pair<int, int>> by_worker;  // worker -> (requests, to replica 2)
      std::ifstream log(folder / "proxy.log");
      static const std::regex line(R"(rpclab-request worker=(\d+) .* upstream=(.*) upstream_status=)");
      for (std::string l; std::getline(log, l);)
        if (std::regex_search(l, m, line)) {
          auto& [n, to] = by_worker[std::stoi(m[1])];
          ++n;
          to += m[2].str().find(r2) != std::string::npos;
        }
      EXPECT_GT(by_worker[out_worker].first, 0) << "the worker started with replica 2 down carried requests";
      EXPECT_EQ(by_worker[out_worker].second, 0) << "and sent none of them to replica 2";
      EXPECT_GT(by_worker[back_worker].second, 0) << "the worker after the return sent requests to replica 2";
      EXPECT_EQ(e["end"]["while_out"]["to_replica"], 0);
    } else {
      EXPECT_EQ(path, "caddy");
      std::vector<std::string> out = e["start"]["upstreams"], back = e["end"]["upstreams"];
      EXPECT_EQ(out.size(), 1u) << "Caddy's admin API lists replica 1 alone while 2 is out";
      EXPECT_EQ(std::count(out.begin(), out.end(), r2), 0);
      EXPECT_EQ(back.size(), 2u);
      EXPECT_EQ(std::count(back.begin(), back.end(), r2), 1);
      std::string caddy = read_whole_file(folder / "proxy-error.log");
      EXPECT_EQ(occurrences(caddy, "\"load complete\""), 2u) << "Caddy's own log: two loads through its admin API";
      // Its log, read here by hand: the round trips that ended between
      // the two loads, and how many went to replica 2 (requests on
      // connections Caddy kept from before the reload: the record's
      // while_out says how many and for how long; a finding, not a rule).
      std::ifstream log(folder / "proxy-error.log");
      int loads = 0, between = 0, to_r2 = 0;
      for (std::string l; std::getline(log, l);) {
        loads += l.find("\"load complete\"") != std::string::npos;
        if (loads == 1 && l.find("\"upstream roundtrip\"") != std::string::npos) {
          ++between;
          to_r2 += l.find("\"upstream\":\"" + r2 + "\"") != std::string::npos;
        }
      }
      EXPECT_GT(between, 0) << "Caddy carried calls while replica 2 was out";
      EXPECT_GT(e["end"]["while_out"]["roundtrips"].get<uint64_t>(), 0u);
      std::cout << "caddy's log between its loads: " << to_r2 << " of " << between << " round trips to replica 2\n";
    }
    // Both replicas served: out of the pool is not out of the trial.
    EXPECT_FALSE(executed(folder / "replica-1" / "ledger.bin").empty());
    EXPECT_FALSE(executed(folder / "replica-2" / "ledger.bin").empty());
    // The operator's question: did the change run a call twice or lose one?
    std::cout << "out-of-pool on " << path << ": while out " << e["end"]["while_out"].dump() << "; "
              << t["classes"].dump() << " per replica " << t["path"]["executions_per_replica"].dump() << "\n";
  }
  EXPECT_EQ(seen, (std::set<std::string>{"nginx", "caddy"}));
}

}  // namespace
}  // namespace rpclab::test
