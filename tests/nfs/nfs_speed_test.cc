// The NFS speed view (harness/nfs/nfs_speed.h): the GETATTR row of the
// workload, the figures of a timed loop from its call records, whether
// its calls reached the server, the figures over trials, their records
// and their table, the nfs-speed preset's plan (no root); and one short
// speed cell end to end against nfs-ganesha with rpclab's client (root),
// its numbers held against the clock and against the wire.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/cli/experiments.h"
#include "nfs_plan.h"
#include "harness/nfs/client_pcap.h"
#include "harness/nfs/ganesha_server.h"
#include "harness/nfs/nfs_cell.h"
#include "harness/nfs/nfs_client.h"
#include "harness/nfs/nfs_classes.h"
#include "harness/nfs/nfs_speed.h"
#include "harness/record/cell_record.h"
#include "harness/record/trial_record.h"
#include "netem/spec/fault_fields.h"
#include "process/command_runner.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using rpclab::nfs::NfsCall;
using rpclab::nfs::NfsCallRecord;
using rpclab::nfs::NfsOp;

// `n` calls of `op` back to back, the k-th taking k microseconds (1..n),
// starting 1 ms into the record; `failed` of them (the first ones) told
// NFS3ERR_IO.
NfsCallRecord timed_loop(NfsOp op, int n, int failed = 0) {
  NfsCallRecord r;
  int64_t at = 1000000;
  for (int k = 1; k <= n; ++k) {
    NfsCall c;
    c.seq = static_cast<uint32_t>(k);
    c.op = op;
    c.name = rpclab::nfs::step_name(1, c.seq);
    c.start_ns = at;
    c.latency_ns = k * 1000;
    c.nfs = k <= failed ? "NFS3ERR_IO" : "NFS3_OK";
    at += c.latency_ns;
    r.calls.push_back(c);
  }
  return r;
}

TEST(NfsGetattr, IsAnIdempotentRowWithNoReplayStatus) {
  ASSERT_EQ(rpclab::nfs::parse_op("getattr"), NfsOp::kGetattr);
  EXPECT_EQ(rpclab::nfs::op_name(NfsOp::kGetattr), "getattr");
  EXPECT_TRUE(rpclab::nfs::idempotent(NfsOp::kGetattr));
  EXPECT_TRUE(rpclab::nfs::effects(NfsOp::kGetattr, "c1-s1").empty()) << "nothing the end state shows";
  EXPECT_FALSE(rpclab::nfs::replay_status(NfsOp::kGetattr).has_value());
  EXPECT_FALSE(rpclab::nfs::idempotent(NfsOp::kMkdir));
  EXPECT_EQ(rpclab::nfs::replay_status(NfsOp::kMkdir), "NFS3ERR_EXIST");
  // The unknown-operation message names the new row too.
  try {
    rpclab::nfs::parse_ops("mkdir,stat");
    FAIL() << "stat was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("getattr"), std::string::npos) << e.what();
  }
}

// A GETATTR has no effect the end state shows: never judged, and it does
// not stop the step's MKDIR before it from being judged.
TEST(NfsGetattr, IsNeverJudgedFromTheEndState) {
  NfsCallRecord r;
  for (NfsOp op : {NfsOp::kMkdir, NfsOp::kGetattr}) {
    NfsCall c;
    c.seq = 1;
    c.op = op;
    c.name = "c1-s1";
    c.nfs = "NFS3_OK";
    r.calls.push_back(c);
  }
  NfsExportListing end;
  end["c1-s1"] = NfsExportEntry{};
  NfsClassCounts counts = nfs::classify(r, end).all;
  EXPECT_EQ(counts.calls, 2u);
  EXPECT_EQ(counts.not_judged, 1u);
  EXPECT_EQ(counts.correct, 1u) << "the MKDIR";
  r.calls.erase(r.calls.begin());
  counts = nfs::classify(r, NfsExportListing{}).all;
  EXPECT_EQ(counts.not_judged, 1u);
  EXPECT_EQ(counts.judged(), 0u);
}

TEST(NfsSpeed, ATimedLoopsFiguresComeFromItsCalls) {
  NfsOpSpeed s = nfs::op_speed(NfsOp::kGetattr, {timed_loop(NfsOp::kGetattr, 200, 2)}, 20);
  EXPECT_EQ(s.op, "getattr");
  EXPECT_EQ(s.calls, 200u);
  EXPECT_EQ(s.errors, 2u);
  EXPECT_EQ(s.warmup_calls, 20u);
  // The 198 calls told NFS3_OK took 3..200 us: nearest rank.
  ASSERT_TRUE(s.p50_us && s.p99_us);
  EXPECT_DOUBLE_EQ(*s.p50_us, 101.0);  // rank 99 of 198
  EXPECT_DOUBLE_EQ(*s.p99_us, 199.0);  // rank 197 of 198
  // The loop: the calls' latencies back to back, 1 + 2 + ... + 200 us.
  EXPECT_NEAR(s.loop_s, 200 * 201 / 2 * 1e-6, 1e-12);
  EXPECT_NEAR(s.ops_per_s * s.loop_s, 200.0, 1e-9);
}

TEST(NfsSpeed, P99NeedsAHundredCallsAndOnlyTheOpsCallsCount) {
  NfsCallRecord r = timed_loop(NfsOp::kMkdir, 99);
  NfsOpSpeed s = nfs::op_speed(NfsOp::kMkdir, {r}, 0);
  EXPECT_EQ(s.calls, 99u);
  EXPECT_TRUE(s.p50_us.has_value());
  EXPECT_FALSE(s.p99_us.has_value());
  EXPECT_EQ(nfs::op_speed(NfsOp::kGetattr, {r}, 0).calls, 0u);
  // Two clients: each one's calls over its own loop, summed.
  NfsOpSpeed two = nfs::op_speed(NfsOp::kMkdir, {timed_loop(NfsOp::kMkdir, 100), timed_loop(NfsOp::kMkdir, 100)}, 0);
  NfsOpSpeed one = nfs::op_speed(NfsOp::kMkdir, {timed_loop(NfsOp::kMkdir, 100)}, 0);
  EXPECT_EQ(two.calls, 200u);
  EXPECT_NEAR(two.ops_per_s, 2 * one.ops_per_s, 1e-9);
  EXPECT_DOUBLE_EQ(two.loop_s, one.loop_s);
}

TEST(NfsSpeed, AFigureCountsOnlyWhenTheCallsReachedTheServer) {
  NfsOpSpeed s;
  s.warmup_calls = 20;
  s.calls = 200;
  nfs::judge_reached(s, nfs::NfsServer::OpCount{221, "proc3 GETATTR"}, false);
  EXPECT_TRUE(s.reached_server);
  EXPECT_EQ(s.server_count, 221u);
  EXPECT_EQ(s.server_counter, "proc3 GETATTR");
  EXPECT_NE(s.evidence.find("221"), std::string::npos) << s.evidence;
  // A kernel mount that answered from its attribute cache: the counter is short.
  nfs::judge_reached(s, nfs::NfsServer::OpCount{3, "proc3 GETATTR"}, false);
  EXPECT_FALSE(s.reached_server);
  EXPECT_NE(s.evidence.find("answered by the client"), std::string::npos) << s.evidence;
  // No counter: only a client without a cache says so.
  NfsOpSpeed t;
  t.calls = 200;
  nfs::judge_reached(t, std::nullopt, true);
  EXPECT_TRUE(t.reached_server);
  EXPECT_FALSE(t.server_count.has_value());
  nfs::judge_reached(t, std::nullopt, false);
  EXPECT_FALSE(t.reached_server);
}

NfsOpSpeed trial_op(const std::string& op, double p50, std::optional<double> p99, double rate, bool reached = true) {
  NfsOpSpeed s;
  s.op = op;
  s.calls = 200;
  s.warmup_calls = 20;
  s.p50_us = p50;
  s.p99_us = p99;
  s.ops_per_s = rate;
  s.reached_server = reached;
  s.evidence = reached ? "seen" : "not seen";
  s.server_count = 220;
  s.server_counter = "proc3 " + op;
  return s;
}

TEST(NfsSpeed, TheTrialsAreTheUnit) {
  std::vector<std::vector<NfsOpSpeed>> trials = {
      {trial_op("getattr", 100, 300, 9000), trial_op("mkdir", 400, 900, 2400)},
      {trial_op("getattr", 110, 320, 8800), trial_op("mkdir", 420, std::nullopt, 2300)},
      {trial_op("getattr", 120, 340, 8600), trial_op("mkdir", 410, 950, 2350)},
  };
  std::vector<NfsOpSpeedCell> cells = nfs::speed_over_trials(trials);
  ASSERT_EQ(cells.size(), 2u);
  const NfsOpSpeedCell& g = cells[0];
  EXPECT_EQ(g.op, "getattr");
  EXPECT_EQ(g.trials, 3u);
  EXPECT_EQ(g.calls, 600u);
  EXPECT_EQ(g.calls_made, 660u);
  EXPECT_EQ(g.server_count, 660u);
  ASSERT_TRUE(g.p50_us && g.p99_us && g.ops_per_s);
  EXPECT_DOUBLE_EQ(g.p50_us->mean, 110.0);
  EXPECT_EQ(g.p50_us->trials, (std::vector<double>{100, 110, 120}));
  // Student-t with 2 degrees of freedom: 4.303 x 10 / sqrt(3).
  EXPECT_NEAR(g.p50_us->ci95_high - g.p50_us->mean, 4.3027 * 10 / std::sqrt(3.0), 1e-3);
  EXPECT_DOUBLE_EQ(g.p99_us->mean, 320.0);
  EXPECT_DOUBLE_EQ(g.ops_per_s->mean, 8800.0);
  // A trial without a p99 leaves the cell without one; the rest stands.
  EXPECT_FALSE(cells[1].p99_us.has_value());
  EXPECT_TRUE(cells[1].p50_us.has_value());
  // A trial whose calls were not seen at the server: no figures, and why.
  trials[1][0].reached_server = false;
  cells = nfs::speed_over_trials(trials);
  EXPECT_FALSE(cells[0].p50_us || cells[0].p99_us || cells[0].ops_per_s);
  ASSERT_TRUE(cells[0].withheld);
  EXPECT_NE(cells[0].withheld->find("trial 2"), std::string::npos) << *cells[0].withheld;
}

TEST(NfsSpeed, ThePresetPlansEveryServerClientAndTransportOnceWithoutFaults) {
  Plan plan = plan_of({"--preset", "nfs-speed"});
  size_t expected = 0;
  for (const auto& row : nfs::nfs_servers())
    for (const auto& client : nfs::nfs_clients())
      if (nfs::client_server_mismatch(client, row).empty()) expected += client.speaks.size();
  EXPECT_EQ(plan.cells.size(), expected);
  for (const CellConfig& c : plan.cells) {
    EXPECT_EQ(c.block, nfs::kSpeedBlock) << c.label();
    EXPECT_EQ(c.op, "getattr,mkdir") << c.label();
    EXPECT_EQ(c.warmup, 20u) << c.label();
    EXPECT_EQ(c.calls_per_client, 200u) << c.label();
    EXPECT_EQ(c.clients, 1) << c.label();
    EXPECT_TRUE(netem::is_empty(c.faults)) << c.label();
    EXPECT_FALSE(c.restart_at_step.has_value()) << c.label();
    EXPECT_NE(c.reply_cache, std::optional<bool>(false)) << c.label();
    EXPECT_EQ(CellConfig::from_json(c.to_json()).to_json(), c.to_json());
  }
  EXPECT_EQ(plan_of({"--preset", "nfs-speed", "--warmup", "5"}).cells.front().warmup, 5u);
  EXPECT_THROW(plan_of({"--preset", "nfs", "--warmup", "5"}), std::invalid_argument);
}

CellRecord speed_record(const std::vector<NfsOpSpeed>& ops) {
  CellConfig c = plan_of({"--preset", "nfs-speed", "--servers", "nfs-ganesha", "--transports", "nfs3-udp"}).cells.at(0);
  CellRecord r = CellRecord::begin(c, "run-1");
  r.status = "ok";
  r.nfs.server = c.server;
  r.nfs.speed = nfs::speed_over_trials({ops, ops});
  r.nfs.latency_pinned = true;
  return r;
}

TEST(NfsSpeed, TrialAndCellRecordsReadBackAsTheyWereWritten) {
  TrialRecord t;
  t.experiment = "nfs";
  t.nfs.speed = std::vector<NfsOpSpeed>{trial_op("getattr", 100, 300, 9000)};
  (*t.nfs.speed)[0].mount_options = "vers=3,proto=tcp,noac";
  t.nfs.latency_pinned = true;
  json written = per_trial_json(t);
  TrialRecord identity;
  identity.experiment = "nfs";
  NfsTrial back = trial_in_cell(written, identity).nfs;
  ASSERT_TRUE(back.speed);
  EXPECT_EQ(json(*back.speed), json(*t.nfs.speed));
  EXPECT_EQ(back.latency_pinned, true);

  CellRecord r = speed_record({trial_op("getattr", 100, 300, 9000), trial_op("mkdir", 400, 900, 2400)});
  json cell = r;
  CellRecord again = cell.get<CellRecord>();
  EXPECT_EQ(json(again), cell);
  ASSERT_TRUE(again.nfs.speed);
  EXPECT_EQ(json(*again.nfs.speed), json(*r.nfs.speed));
}

std::string table(const std::string& id, const std::vector<CellRecord>& records) {
  for (const ReportTable& t : find_experiment("nfs").tables)
    if (t.id == id) return t.render(records, ReportOptions{});
  ADD_FAILURE() << "no table " << id;
  return "";
}

TEST(NfsSpeed, ItsTableShowsEachOpAndTheOtherTablesLeaveItOut) {
  CellRecord r = speed_record({trial_op("getattr", 100, 300, 9000), trial_op("mkdir", 400, 900, 2400)});
  std::string speed = table("nfs-speed", {r});
  EXPECT_NE(speed.find("nfs-ganesha nfs3-udp"), std::string::npos) << speed;
  EXPECT_NE(speed.find("getattr"), std::string::npos) << speed;
  EXPECT_NE(speed.find("mkdir"), std::string::npos) << speed;
  EXPECT_NE(speed.find("9000"), std::string::npos) << speed;                      // ops/s, the trials alike
  EXPECT_NE(speed.find("proc3 getattr 440 of 440"), std::string::npos) << speed;  // server counted
  EXPECT_NE(speed.find("held at 0"), std::string::npos) << speed;
  EXPECT_EQ(table("nfs", {r}), "");
  EXPECT_EQ(table("nfs-classes", {r}), "");
  // Withheld figures say why instead.
  CellRecord w = speed_record({trial_op("getattr", 100, 300, 9000, false)});
  speed = table("nfs-speed", {w});
  EXPECT_NE(speed.find("withheld"), std::string::npos) << speed;
  EXPECT_EQ(speed.find("9000"), std::string::npos) << speed;
}

std::string why_not_root() {
  if (::geteuid() != 0) return "needs root (namespaces, nftables, ganesha)";
  if (std::string why = nfs::ganesha_missing(); !why.empty()) return why;
  return nfs::tcpdump_missing();
}

// What tcpdump said as it ended ("N packets captured;N packets received by
// filter;N packets dropped by kernel"), from the cell's cell.json.
std::string tcpdump_summary(const std::string& out_dir) {
  std::ifstream in(out_dir + "/cell.json");
  nlohmann::json cell = nlohmann::json::parse(in, nullptr, false);
  if (cell.is_discarded() || !cell.contains("pcap") || !cell["pcap"].contains("tcpdump")) return "";
  return cell["pcap"]["tcpdump"].get<std::string>();
}

// The packets tcpdump says the kernel dropped before it read them.
int tcpdump_dropped(const std::string& out_dir) {
  std::string s = tcpdump_summary(out_dir);
  size_t at = s.find(" packets dropped by kernel");
  if (at == std::string::npos) return 0;
  size_t from = s.find_last_of(";", at);
  return std::atoi(s.c_str() + (from == std::string::npos ? 0 : from + 1));
}

// NFS calls of `procedure` ("getattr", "mkdir") the client sent, as tcpdump
// decodes its capture: a request line reads "<client>.<xid> > <server>.2049:
// ... <procedure> fh ...".
int requests_on_the_wire(const std::string& pcap, const std::string& procedure) {
  process::CommandLog log;
  auto r = process::run({"tcpdump", "-r", pcap, "-nn"}, log);
  std::istringstream in(r.out);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find(".2049: ") != std::string::npos && line.find(" " + procedure + " ") != std::string::npos) ++n;
  return n;
}

// One speed cell against nfs-ganesha with rpclab's client over UDP: the
// timed loops' numbers agree with the clock, and the wire carried at least
// the calls made (ganesha keeps no counter here; the capture counts).
TEST(NfsSpeedE2E, GaneshasNumbersAgreeWithTheClockAndTheWire) {
  if (auto why = why_not_root(); !why.empty()) GTEST_SKIP() << why;
  nfs::NfsCellOptions o;
  o.speed = true;
  o.ops = "getattr,mkdir";
  o.count = 150;
  o.warmup = 10;
  o.pcap = true;
  o.client_program = RPCLAB_BIN_DIR "/rpclab-nfs-client";
  o.out_dir = ::testing::TempDir() + "rpclab-nfs-speed-" + std::to_string(::getpid());
  NfsTrial r = nfs::run_nfs_cell(o);
  ASSERT_TRUE(r.speed && r.client_wall_s);
  ASSERT_EQ(r.speed->size(), 2u);
  double loops = 0;
  for (const NfsOpSpeed& s : *r.speed) {
    SCOPED_TRACE(s.op);
    EXPECT_EQ(s.calls, 150u);
    EXPECT_EQ(s.errors, 0u);
    EXPECT_EQ(s.warmup_calls, 10u);
    ASSERT_TRUE(s.p50_us && s.p99_us);
    EXPECT_GT(*s.p50_us, 0);
    EXPECT_LE(*s.p50_us, *s.p99_us);
    // ops/s x the loop's wall time is the calls; the loop fits in its
    // calls' time: no call faster than the loop allows.
    EXPECT_NEAR(s.ops_per_s * s.loop_s, 150.0, 1e-6);
    EXPECT_GE(s.loop_s, 150 * *s.p50_us / 1e6 * 0.5);
    EXPECT_TRUE(s.reached_server) << s.evidence;
    loops += s.loop_s;
    // tcpdump's own count of what it lost (a busy machine) excuses as many.
    EXPECT_GE(requests_on_the_wire(o.out_dir + "/client.pcap", s.op) + tcpdump_dropped(o.out_dir), 160)
        << s.op << ": " << tcpdump_summary(o.out_dir);
  }
  EXPECT_EQ((*r.speed)[0].op, "getattr");
  EXPECT_EQ((*r.speed)[1].op, "mkdir");
  // The clients' processes (mount included) outlast their timed loops.
  EXPECT_LE(loops, *r.client_wall_s);
  // Every MKDIR made its own directory (fresh names, warm-up's too): 160.
  size_t dirs = 0;
  for (const auto& e : std::filesystem::directory_iterator(o.out_dir + "/server/export")) dirs += e.is_directory();
  EXPECT_EQ(dirs, 160u);
  std::filesystem::remove_all(o.out_dir);
}

}  // namespace
}  // namespace rpclab::harness
