// The NFS experiment's row: its planner (no root), its records (no root),
// and a quick run end to end against a real nfs-ganesha (root).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/cli/experiments.h"
#include "nfs_plan.h"
#include "harness/nfs/ganesha_server.h"
#include "harness/nfs/nfs_client.h"
#include "harness/nfs/nfs_server.h"
#include "harness/record/cell_record.h"
#include "harness/record/trial_record.h"
#include "harness/run/trial_stats.h"
#include "netem/spec/fault_event.h"
#include "nfs/nfs_workload.h"
#include "../harness/harness_e2e_util.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

TEST(NfsExperiment, ThePresetPlansEveryServerClientTransportCacheAndFault) {
  Plan plan = plan_of({"--preset", "nfs"});
  size_t expected = 0, expected_restarts = 0;
  for (const auto& row : nfs::nfs_servers())
    for (const auto& client : nfs::nfs_clients())
      // The libnfs row is in the nfs preset only when asked (--nfs-clients).
      if (nfs::client_server_mismatch(client, row).empty() && client.name != "libnfs") {
        size_t rows = client.speaks.size() * (row.drc_switch ? 2 : 1);
        // Faults none, dup, reply loss; and restart, with rpclab's client only (its step gate).
        expected += rows * (client.in_guest ? 3 : 4);
        if (!client.in_guest) expected_restarts += rows;
      }
  // And the other operations' group: ganesha over UDP, cache off and on,
  // 10% duplicated, two op lists; the reset column's 5 TCP cells (libnfs
  // on ganesha, resets spaced; the kernel client and libnfs on knfsd); the
  // kernel client's 2 restart cells, struck in flight (no step gate).
  expected += 4 + 5 + 2;
  expected_restarts += 2;
  EXPECT_EQ(plan.cells.size(), expected);
  std::set<std::string> op_lists;
  for (const CellConfig& c : plan.cells) {
    op_lists.insert(c.op);
    if (c.op != "mkdir") {
      EXPECT_EQ(c.server, "nfs-ganesha") << c.label();
      EXPECT_EQ(c.transport, "nfs3-udp") << c.label();
      EXPECT_EQ(c.faults.dup_pct, 10) << c.label();
      EXPECT_NE(c.label().find(c.op), std::string::npos) << c.label();
    }
  }
  EXPECT_EQ(op_lists, (std::set<std::string>{"mkdir", "create-exclusive,write", "create-guarded,link,rename"}));
  size_t restarts = 0;
  for (const CellConfig& c : plan.cells) {
    // The restart column: at the middle step, with a call time that outlasts the restart.
    if (c.restart_at_step) {
      ++restarts;
      // The kernel client has no step gate: its call in flight once 99 of
      // its 12,000 steps ran (armed early: the guest's drop is slow to go in).
      bool in_flight = !(c.nfs_client.empty() ? nfs::nfs_clients().front() : nfs::nfs_client(c.nfs_client)).step_gate;
      EXPECT_EQ(*c.restart_at_step, in_flight ? 100u : 50u) << c.label();
      EXPECT_EQ(c.nfs_client == "kernel", in_flight) << c.label();
      EXPECT_GE(c.timeout_ms.value_or(0), 30000) << c.label();
      EXPECT_NE(c.label().find(in_flight ? "restart at step 100" : "restart at step 50"), std::string::npos)
          << c.label();
    }
    EXPECT_EQ(c.experiment, "nfs");
    const auto& row = nfs::nfs_server(c.server);
    // A server that cannot turn its cache off has no cache axis at all.
    EXPECT_EQ(c.reply_cache.has_value(), row.drc_switch) << c.label();
    // Duplicates on the way to the server (the reply cache's case), losses
    // on the way back (the reply lost, the request retransmitted).
    if (c.faults.dup_pct > 0) {
      EXPECT_EQ(c.faults.direction, netem::Direction::kToServer) << c.label();
    }
    if (c.faults.loss_pct > 0) {
      EXPECT_EQ(c.faults.direction, netem::Direction::kToClient) << c.label();
    }
    // Only UDP and a mounting client (its timeo) have a retransmit interval.
    EXPECT_EQ(c.settings.on(kRetryTimeout), c.transport == "nfs3-udp" || c.nfs_client == "kernel") << c.label();
    // The cell travels (resume, a guest) as its JSON.
    EXPECT_EQ(CellConfig::from_json(c.to_json()).to_json(), c.to_json());
    EXPECT_NE(c.label().find(c.server), std::string::npos) << c.label();
  }
  EXPECT_EQ(restarts, expected_restarts);
}

// knfsd x the kernel client: NFSv3/TCP and v4.1, no UDP (compiled out of
// the guest's client); ganesha x kernel is left out with its reason, and
// rpclab's own client's cells keep the identity they had before the axis.
TEST(NfsExperiment, TheKernelClientRunsWithKnfsdOverNfs3TcpAndNfs41) {
  Plan plan = plan_of({"--preset", "nfs"});
  std::set<std::string> kernel_transports, servers_with_kernel;
  for (const CellConfig& c : plan.cells) {
    if (c.nfs_client == "libnfs") continue;  // the reset column's (below)
    if (c.nfs_client.empty()) {
      EXPECT_NE(c.transport, "nfs4.1-tcp") << c.label();
      EXPECT_FALSE(c.to_json().contains("nfs_client")) << c.label();
      continue;
    }
    EXPECT_EQ(c.nfs_client, "kernel");
    EXPECT_EQ(c.to_json()["nfs_client"], "kernel");
    EXPECT_NE(c.label().find("client kernel"), std::string::npos) << c.label();
    kernel_transports.insert(c.transport);
    servers_with_kernel.insert(c.server);
  }
  EXPECT_EQ(kernel_transports, (std::set<std::string>{"nfs3-tcp", "nfs4.1-tcp"}));
  EXPECT_EQ(servers_with_kernel, (std::set<std::string>{"knfsd"}));
  bool said = false;
  for (const std::string& n : plan.notes) said = said || n.find("not nfs-ganesha") != std::string::npos;
  EXPECT_TRUE(said) << "no note says why ganesha x kernel is left out";
  // Asked for alone, the mismatch leaves nothing to run: refused, with the flags to check.
  EXPECT_THROW(plan_of({"--servers", "nfs-ganesha", "--nfs-clients", "kernel"}), std::invalid_argument);
  EXPECT_THROW(plan_of({"--nfs-clients", "no-such-client"}), std::invalid_argument);
  Plan v41 = plan_of({"--nfs-clients", "kernel", "--transports", "nfs4.1-tcp,nfs3-udp"});
  for (const CellConfig& c : v41.cells) EXPECT_EQ(c.transport, "nfs4.1-tcp") << c.label();
}

TEST(NfsExperiment, FlagsNarrowTheMatrixAndBadOnesAreRefused) {
  Plan plan = plan_of({"--preset", "nfs", "--servers", "nfs-ganesha", "--transports", "nfs3-tcp", "--reply-cache",
                       "off", "--dup", "0,50", "--trials", "2", "--calls", "7"});
  ASSERT_EQ(plan.cells.size(), 2u);
  EXPECT_EQ(plan.cells[0].faults.dup_pct, 0);
  EXPECT_EQ(plan.cells[1].faults.dup_pct, 50);
  for (const CellConfig& c : plan.cells) {
    EXPECT_EQ(c.reply_cache, false);
    EXPECT_EQ(c.trials, 2);
    EXPECT_EQ(c.calls_per_client, 7u);
  }
  EXPECT_THROW(plan_of({"--servers", "no-such-server"}), std::invalid_argument);
  EXPECT_THROW(plan_of({"--transports", "nfs3-sctp"}), CLI::ValidationError);
  // --ops replaces the preset's op lists; an unknown operation is refused
  // naming the ones the table has.
  Plan ops = plan_of({"--preset", "nfs", "--servers", "nfs-ganesha", "--ops", "create-guarded,link,rename"});
  for (const CellConfig& c : ops.cells) EXPECT_EQ(c.op, "create-guarded,link,rename") << c.label();
  try {
    plan_of({"--ops", "mkdir,symlink"});
    ADD_FAILURE() << "symlink planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(rpclab::nfs::known_ops_text()), std::string::npos) << e.what();
  }
  // --servers narrows the op groups too: knfsd alone has none.
  for (const CellConfig& c : plan_of({"--servers", "knfsd"}).cells) EXPECT_EQ(c.op, "mkdir") << c.label();
}

TEST(NfsRecords, ACellRecordReadsBackAsItWasWritten) {
  CellConfig c = plan_of({"--preset", "nfs-quick"}).cells.at(1);
  CellRecord r = CellRecord::begin(c, "run-1");
  NfsClassCounts classes;
  classes.calls = classes.correct = 18;
  classes.replayed_told_failure = 2;
  classes.calls = 20;
  TrialCounts t{1, {client_counts(1, classes)}};
  r.nfs.server = c.server;
  r.nfs.classes = MaybeNull<NfsClassCounts>::of(classes);
  r.nfs.over_trials = OverTrialsFigures{over_trials({t}, &ClientTrialCounts::silent),
                                        over_trials({t}, &ClientTrialCounts::duplicate_calls),
                                        over_trials({t}, &ClientTrialCounts::extra_executions)};
  r.nfs.server_ends = std::vector<std::string>{"killed by SIGSEGV"};
  json written = r;
  EXPECT_EQ(written["classes"]["replayed_told_failure"], 2);
  EXPECT_EQ(written["nfs_server"], c.server);
  CellRecord back = written.get<CellRecord>();
  EXPECT_EQ(json(back), written);
  EXPECT_EQ(back.nfs.classes->replayed_told_failure, 2u);
  EXPECT_EQ(back.nfs.over_trials->duplicate_calls.events, 2u);
  EXPECT_EQ(back.nfs.over_trials->duplicate_calls.calls, 20u);
}

// A trial's restart evidence survives its trip through JSON (the guest
// relays the knfsd cell's trial that way).
// The reset column: the TCP rows whose resend after a reconnect matters,
// each cell's faults one reset event lasting for= (the guest's iptables
// rule needs it), alone (--columns reset) or in the preset.
TEST(NfsExperiment, TheResetColumnRunsOnTheTcpRowsThatResend) {
  Plan plan = plan_of({"--preset", "nfs", "--columns", "reset"});
  std::set<std::string> rows;
  for (const CellConfig& c : plan.cells) {
    EXPECT_EQ(c.block, "reset") << c.label();
    EXPECT_NE(c.transport, "nfs3-udp") << c.label();
    ASSERT_EQ(c.faults.events.size(), 1u) << c.label();
    const netem::FaultEvent& e = c.faults.events[0];
    EXPECT_STREQ(e.kind->name, "reset");
    EXPECT_GT(e.for_ms, 0) << c.label();
    // libnfs on ganesha: many resets a trial, each past libnfs's stall
    // after the one before; the guest's cells once.
    bool spaced = c.server == "nfs-ganesha";
    EXPECT_EQ(e.every_ms.has_value(), spaced) << c.label();
    if (spaced) {
      EXPECT_GE(*e.every_ms, 2000) << c.label();
    }
    EXPECT_EQ(c.op, "mkdir") << c.label();
    // Long enough to be running when the reset's rules are in: on a quiet
    // machine libnfs made 3,000 MKDIRs before the 300 ms were up (in the
    // guest, against knfsd, a MKDIR of libnfs took 4 ms: 3,000 there).
    EXPECT_GE(c.calls_per_client, c.server == "knfsd" && c.nfs_client == "libnfs" ? 3000u : 12000u) << c.label();
    EXPECT_EQ(CellConfig::from_json(c.to_json()).to_json(), c.to_json());
    rows.insert(c.server + " " + c.nfs_client + " " + c.transport + " " +
                (c.reply_cache ? (*c.reply_cache ? "on" : "off") : "-"));
  }
  EXPECT_EQ(rows, (std::set<std::string>{"nfs-ganesha libnfs nfs3-tcp off", "nfs-ganesha libnfs nfs3-tcp on",
                                          "knfsd kernel nfs3-tcp -", "knfsd kernel nfs4.1-tcp -",
                                          "knfsd libnfs nfs3-tcp -"}));
  // --nfs-clients narrows the column too; --columns names only the preset's.
  for (const CellConfig& c : plan_of({"--preset", "nfs", "--columns", "reset", "--nfs-clients", "kernel"}).cells)
    EXPECT_EQ(c.nfs_client, "kernel") << c.label();
  EXPECT_THROW(plan_of({"--columns", "meteor"}), CLI::ValidationError);
  for (const CellConfig& c : plan_of({"--preset", "nfs", "--columns", "none,dup"}).cells) {
    EXPECT_TRUE(c.faults.events.empty()) << c.label();
    EXPECT_FALSE(c.restart_at_step) << c.label();
  }
}

// A trial's events as netem::EventRunner wrote them: read back whole, and
// resets_seen counts ss -K's closed sockets and the reject rules' answers.
TEST(NfsRecords, ATrialsEventsReadBackAndSayWhetherAResetStruck) {
  json struck = {{"kind", "reset"}, {"event", 0}, {"occurrence", 0}, {"start_ms", 20.1},
                 {"start", {{"tool", "nft"}, {"closed_at_server", 1}, {"closed_at_client", 1}}},
                 {"end", {{"tool", "nft"}, {"reset_to_server", 2}, {"reset_to_client", 3}}}};
  json in_guest = {{"kind", "reset"}, {"event", 0}, {"occurrence", 1},
                   {"start", {{"tool", "iptables"}}}, {"end", {{"tool", "iptables"}, {"reset_to_server", 4}, {"reset_to_client", 0}}}};
  json idle = {{"kind", "reset"}, {"event", 0}, {"occurrence", 2},
               {"start", {{"tool", "ss"}, {"closed_at_server", 0}, {"closed_at_client", 0}, {"warning", "ss -K closed none"}}}};
  EXPECT_EQ(resets_seen(event_occurrence(struck)), 7u);
  EXPECT_EQ(resets_seen(event_occurrence(in_guest)), 4u);
  EXPECT_EQ(resets_seen(event_occurrence(idle)), 0u);
  TrialRecord t;
  t.experiment = "nfs";
  t.nfs.events = std::vector<EventOccurrence>{event_occurrence(struck), event_occurrence(idle)};
  t.nfs.warnings = event_occurrence(idle).warnings;
  t.nfs.events_not_met = "not a measurement: 1 reset occurrence(s) struck no connection";
  json written = per_trial_json(t);
  EXPECT_EQ(written["events"][0], struck);
  EXPECT_EQ(written["warnings"][0], "reset #2 start: ss -K closed none");
  TrialRecord identity;
  identity.experiment = "nfs";
  NfsTrial back = trial_in_cell(written, identity).nfs;
  ASSERT_TRUE(back.events);
  ASSERT_EQ(back.events->size(), 2u);
  EXPECT_EQ(resets_seen((*back.events)[0]), 7u);
  EXPECT_EQ(back.warnings, t.nfs.warnings);
  EXPECT_EQ(back.events_not_met, t.nfs.events_not_met);
}

TEST(NfsRecords, ATrialsRestartReadsBackAsItWasWritten) {
  TrialRecord t;
  t.experiment = "nfs";
  NfsRestart x;
  x.step = 5;
  x.name = "c1-s5";
  x.transport = "udp";
  x.told = "NFS3ERR_EXIST";
  x.step_class = "replayed_told_failure";
  x.cause = "restart";
  NfsEventStep e;
  e.what = "restarted";
  e.at_ms = 3239.5;
  e.server_counters = json{{"reply_cache", {{"num_entries", 0}}}};
  x.events = {e};
  t.nfs.restart = x;
  json written = per_trial_json(t);
  EXPECT_EQ(written["restart"]["class"], "replayed_told_failure");
  EXPECT_EQ(written["restart"]["events"][0]["server_counters"]["reply_cache"]["num_entries"], 0);
  TrialRecord identity;
  identity.experiment = "nfs";
  NfsTrial back = trial_in_cell(written, identity).nfs;
  ASSERT_TRUE(back.restart);
  EXPECT_EQ(json(*back.restart), json(x));
  EXPECT_EQ(back.restart->cause, "restart");
}

std::string why_not_run() {
  if (::geteuid() != 0) return "needs root (network namespaces, nftables, ganesha)";
  return nfs::ganesha_missing();
}

// The quick preset through `rpclab nfs`, 10 MKDIRs a trial (half the requests
// duplicated, so that the fault surely happens): every cell ran,
// its fault happened on the wire, the export's end state judged every
// MKDIR, the tables were drawn, and nothing is left behind.
TEST(NfsE2E, AQuickRunJudgesEveryMkdirAndDrawsItsTables) {
  if (auto why = why_not_run(); !why.empty()) GTEST_SKIP() << why;
  test::TempDir dir;
  test::ProcessResult r = test::run_program(
      {test::bin("rpclab"), "nfs", "--preset", "nfs-quick", "--servers", "nfs-ganesha", "--calls", "10", "--dup", "0,50", "--out",
       dir.file("run"), "--results-root", dir.file("results")},
      240s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto records = test::read_jsonl(dir.file("run/results.jsonl"));
  ASSERT_EQ(records.size(), 4u);  // udp x cache on, off x no fault, dup 50%
  for (const json& j : records) {
    CellRecord rec = j.get<CellRecord>();
    ASSERT_TRUE(rec.ok()) << rec.label << ": " << rec.reason;
    ASSERT_TRUE(rec.nfs.classes.has_value()) << rec.label;
    const NfsClassCounts& c = *rec.nfs.classes;
    EXPECT_EQ(c.judged(), 10u) << rec.label;
    EXPECT_EQ(c.correct + c.replayed_told_failure + c.replayed_told_success + c.lost + c.indeterminate + c.clean_failure, 10u) << rec.label;
    ASSERT_TRUE(rec.nfs.faults) << rec.label;
    if (rec.cell.config.faults.dup_pct > 0) {
      EXPECT_EQ(rec.nfs.faults->backend, "nftables") << rec.label;
      EXPECT_GT(rec.nfs.faults->measured_dup_pct.value_or(0.0), 0) << rec.label << ": the fault never happened";
    } else {
      EXPECT_EQ(rec.nfs.faults->backend, "none") << rec.label;
      EXPECT_EQ(c.correct, 10u) << rec.label << ": without a fault every MKDIR is correct";
    }
    ASSERT_TRUE(rec.per_trial && rec.per_trial->size() == 1u) << rec.label;
    EXPECT_TRUE(rec.per_trial->front().nfs.told.has_value()) << rec.label;
  }
  std::ifstream report(dir.file("run/report.txt"));
  std::stringstream text;
  text << report.rdbuf();
  EXPECT_NE(text.str().find("replayed, told failure"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("cache off"), std::string::npos) << text.str();
  // report.html's "Every cell" has the NFS classes of each cell (it had
  // only the common columns before).
  std::ifstream html(dir.file("run/report.html"));
  std::stringstream page;
  page << html.rdbuf();
  EXPECT_NE(page.str().find("<th>replayed, told failure</th>"), std::string::npos);
  EXPECT_NE(page.str().find("<th>reply-cache hits</th>"), std::string::npos);
  // Every trial kept its wire at both ends (issue 42), more than a header each.
  int trials = 0;
  for (const auto& cell : std::filesystem::directory_iterator(dir.file("run/cells"))) {
    ++trials;
    for (const char* end : {"client.pcap", "server.pcap"})
      EXPECT_GT(std::filesystem::file_size(cell.path() / "trial-1" / end), 24u) << cell.path() << " " << end;
  }
  EXPECT_EQ(trials, 4);
  EXPECT_TRUE(test::namespaces_left_by(dir.file("run")).empty());
}

// docs/results/nfs.md's first claim, reproduced: nfs-ganesha over UDP with 30% of
// its replies lost (so the client retransmits the same xid) tells some
// MKDIRs "exists" for the directory they made themselves when its reply
// cache is off, and none when it is on. With 20 MKDIRs the chance that no
// reply is lost at all is 0.7^20, under 0.1%.
TEST(NfsE2E, GaneshaWithItsCacheOffReplaysWhereTheCacheOnDoesNot) {
  if (auto why = why_not_run(); !why.empty()) GTEST_SKIP() << why;
  test::TempDir dir;
  test::ProcessResult r = test::run_program(
      {test::bin("rpclab"), "nfs", "--servers", "nfs-ganesha", "--nfs-clients", "rpclab", "--transports", "nfs3-udp",
       "--reply-cache", "on,off", "--loss", "30", "--calls", "20", "--trials", "1", "--retransmit-ms", "200",
       "--out", dir.file("run"), "--results-root", dir.file("results")},
      240s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto records = test::read_jsonl(dir.file("run/results.jsonl"));
  ASSERT_EQ(records.size(), 2u);
  for (const json& j : records) {
    CellRecord rec = j.get<CellRecord>();
    ASSERT_TRUE(rec.ok() && rec.nfs.classes.has_value() && rec.nfs.faults) << rec.label << ": " << rec.reason;
    EXPECT_GT(rec.nfs.faults->measured_loss_pct.value_or(0.0), 0) << rec.label << ": no reply was lost";
    const NfsClassCounts& c = *rec.nfs.classes;
    EXPECT_EQ(c.judged(), 20u) << rec.label;
    if (rec.cell.config.reply_cache.value_or(true)) {
      EXPECT_EQ(c.replayed_told_failure, 0u) << rec.label << ": the cache answers a retransmission";
      EXPECT_EQ(c.correct, 20u) << rec.label;
    } else {
      EXPECT_GT(c.replayed_told_failure, 0u) << rec.label << ": without the cache a retransmission runs again";
    }
  }
}

}  // namespace
}  // namespace rpclab::harness
