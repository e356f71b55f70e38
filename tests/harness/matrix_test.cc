#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "harness/record/cell_config.h"
#include "harness/dependability/levy_surface.h"
#include "harness/dependability/matrix.h"
#include "harness/speed/speed_matrix.h"
#include "netem/spec/fault_fields.h"
#include "netem/spec/spec_error.h"
#include "sunrpc/sunrpc_settings.h"

namespace rpclab::harness {
namespace {

size_t count_if_transport(const std::vector<CellConfig>& cells, const std::string& t) {
  size_t n = 0;
  for (const auto& c : cells) n += c.transport == t;
  return n;
}

TEST(Matrix, Levy1989IsTheLoadTableThenTheFaultsTable) {
  auto blocks = dependability_preset("levy1989");
  auto cells = expand_dependability(blocks);
  // The run's budget: the transports over HTTP make half the calls.
  const std::map<std::string, double> half = {{"xmlrpc", 0.5}, {"jsonrpc", 0.5}};
  for (const Block& b : blocks) EXPECT_EQ(b.call_share, half) << b.name;
  // load: udp 4 loads x 2 retry intervals, and 4 loads for each of tcp,
  // grpc, xmlrpc, jsonrpc; faults: 3 x 3 grid per transport.
  EXPECT_EQ(cells.size(), 24u + 45u);
  EXPECT_EQ(count_if_transport(cells, "sunrpc-udp"), 8u + 9u);
  for (const char* t : {"sunrpc-tcp", "grpc", "xmlrpc", "jsonrpc"})
    EXPECT_EQ(count_if_transport(cells, t), 4u + 9u) << t;
  for (const auto& c : cells) {
    bool http = half.count(c.transport) > 0;
    if (c.block == "load") {
      EXPECT_TRUE(netem::is_empty(c.faults));
      EXPECT_EQ(c.clients, 8);
      bool cascade = c.hogs > 0 && c.settings.on(kRetryTimeout);
      EXPECT_EQ(c.total_calls() * static_cast<uint64_t>(c.trials), http ? 40000u : cascade ? 20000u : 80000u)
          << "80,000 a cell (HTTP transports: half; load with a short retransmit interval: a quarter), over its "
             "trials: the most that fits 25 minutes";
      EXPECT_EQ(c.topology, netem::TopologyKind::kLoopback);
    } else {
      EXPECT_EQ(c.block, "faults");
      EXPECT_EQ(c.total_calls() * static_cast<uint64_t>(c.trials), http ? 8000u : 16000u);
      EXPECT_EQ(c.topology, netem::TopologyKind::kTwoHost);
      EXPECT_EQ(c.hogs, 0);
    }
    if (!find_transport(c.transport)->takes(kRetryTimeout, Side::kClient)) {
      EXPECT_FALSE(c.settings.on(kRetryTimeout)) << c.transport << " never retransmits";
    }
    EXPECT_GE(c.trials, 3) << "a cell runs as independent trials";
  }
}

TEST(Matrix, TrialsOverrideEveryTable) {
  auto blocks = dependability_preset("levy1989");
  AxisOverrides o;
  o.trials = 2;
  apply_overrides(blocks, o);
  for (const auto& c : expand_dependability(blocks)) EXPECT_EQ(c.trials, 2);
}

TEST(Matrix, CellIdsAreUnique) {
  for (const std::string& preset : dependability_presets()) {
    std::set<std::string> ids;
    for (const auto& c : expand_dependability(dependability_preset(preset))) EXPECT_TRUE(ids.insert(c.id()).second);
  }
}

TEST(Matrix, QuickHasTheCiCells) {
  auto cells = expand_dependability(dependability_preset("quick"));
  EXPECT_EQ(cells.size(), 11u);  // 5 clean, sunrpc-udp without and with its reply cache, 4 stream transports
  int with_cache = 0;
  for (const auto& c : cells) with_cache += c.settings.on(sunrpc::kReplyCache);
  EXPECT_EQ(with_cache, 1);
  for (const auto& c : cells)
    if (c.settings.on(sunrpc::kReplyCache)) {
      EXPECT_TRUE(find_transport(c.transport)->takes(sunrpc::kReplyCache, Side::kServer)) << c.transport;
    }
}

TEST(Matrix, OverridesReplaceAnAxisEverywhere) {
  auto blocks = dependability_preset("levy1989");
  AxisOverrides o;
  o.transports = std::vector<std::string>{"grpc"};
  o.calls = 500;
  o.fault_calls = 50;
  apply_overrides(blocks, o);
  auto cells = expand_dependability(blocks);
  EXPECT_EQ(cells.size(), 4u + 9u);
  for (const auto& c : cells) EXPECT_EQ(c.total_calls(), c.block == "load" ? 496u : 48u);  // over 8 clients each
}

TEST(Matrix, DirectionAloneTurnsThePresetsFaultsAround) {
  auto blocks = dependability_preset("quick");
  AxisOverrides o;
  o.direction = "to-server";
  apply_overrides(blocks, o);
  int impaired = 0;
  for (const auto& c : expand_dependability(blocks))
    if (!netem::is_empty(c.faults)) {
      ++impaired;
      EXPECT_EQ(c.faults.direction, netem::Direction::kToServer);
      EXPECT_DOUBLE_EQ(c.faults.dup_pct, 5);
    }
  EXPECT_EQ(impaired, 6);  // udp-dup's 2 and stream-dup's 4
}

TEST(Matrix, TablesKeepOnlyTheNamedBlocks) {
  auto blocks = dependability_preset("levy1989");
  AxisOverrides o;
  o.blocks = std::vector<std::string>{"faults"};
  apply_overrides(blocks, o);
  EXPECT_EQ(expand_dependability(blocks).size(), 45u);
}

TEST(Matrix, FaultsMoveACellOntoTheTwoHostLink) {
  auto blocks = dependability_preset("quick");
  AxisOverrides o;
  o.dup_pct = std::vector<double>{5};
  apply_overrides(blocks, o);
  for (const auto& c : expand_dependability(blocks)) EXPECT_EQ(c.topology, netem::TopologyKind::kTwoHost);
}

TEST(Matrix, BadOverridesAreRejected) {
  auto blocks = dependability_preset("quick");
  AxisOverrides o;
  o.transports = std::vector<std::string>{"carrier-pigeon"};
  EXPECT_THROW(apply_overrides(blocks, o), std::invalid_argument);
  AxisOverrides loss;
  loss.loss_pct = std::vector<double>{150};
  EXPECT_THROW(apply_overrides(blocks, loss), netem::SpecError);
  EXPECT_THROW(dependability_preset("levy2024"), std::invalid_argument);
  AxisOverrides tables;
  tables.blocks = std::vector<std::string>{"no-such-table"};
  EXPECT_THROW(apply_overrides(blocks, tables), std::invalid_argument);
}

// What can be known before a cell runs is refused before any does.
TEST(Matrix, FewerCallsThanClientsAreRefusedNamingTheFlagThatSetsThem) {
  auto blocks = dependability_preset("quick");
  AxisOverrides o;
  o.blocks = std::vector<std::string>{"clean", "udp-dup"};
  o.clients = std::vector<int>{1, 8};
  o.calls = 5;
  try {
    apply_overrides(blocks, o);
    ADD_FAILURE() << "5 calls were shared by 8 clients";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("table clean: 5 calls per trial cannot be shared by 8 clients"),
              std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("give --calls 8 or more"), std::string::npos) << e.what();
  }
  o.calls = 8;
  o.fault_calls = 7;
  try {
    apply_overrides(blocks, o);
    ADD_FAILURE() << "7 fault calls were shared by 8 clients";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("give --fault-calls 8 or more"), std::string::npos) << e.what();
  }
}

TEST(Matrix, AnUnevenSplitIsSaidAndEveryClientGetsItsShare) {
  auto blocks = dependability_preset("quick");
  AxisOverrides o;
  o.blocks = std::vector<std::string>{"clean"};
  o.clients = std::vector<int>{4};
  o.calls = 10;
  apply_overrides(blocks, o);
  for (const auto& c : expand_dependability(blocks)) EXPECT_EQ(c.calls_per_client, 2u);
  std::vector<std::string> notes = uneven_splits(blocks);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "table clean: 10 calls do not split evenly over 4 clients; each client makes 2, 8 in all");
  o.calls = 12;
  blocks = dependability_preset("quick");
  apply_overrides(blocks, o);
  EXPECT_TRUE(uneven_splits(blocks).empty());
  EXPECT_TRUE(uneven_splits(dependability_preset("levy1989")).empty()) << "a preset that drops calls";
}

TEST(Matrix, TablesNameEveryWordThePresetLacks) {
  auto blocks = dependability_preset("levy1989");
  AxisOverrides o;
  o.blocks = std::vector<std::string>{"load", "lod"};
  try {
    apply_overrides(blocks, o);
    ADD_FAILURE() << "'lod' was ignored";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "--tables: 'lod' is not a table of this preset (its tables: load, faults)");
  }
}

TEST(Matrix, FaultsANamedBackendCanNeverApplyAreRefused) {
  AxisOverrides o;
  o.profile = "wan";  // delay and reorder: nftables cannot apply them
  o.faults_backend = "nftables";
  auto blocks = dependability_preset("quick");
  EXPECT_THROW(apply_overrides(blocks, o), netem::SpecError);
  for (const char* can : {"netem", "uml-netem", "auto"}) {
    o.faults_backend = can;
    blocks = dependability_preset("quick");
    EXPECT_NO_THROW(apply_overrides(blocks, o)) << can;
  }
}

// The speed matrix from the table: floors before the transports compared
// with them, TCP_NODELAY only where a row takes it, and a transport the
// table does not know refused before any cell.
TEST(SpeedMatrix, FloorsFirstAndNodelayOnlyWhereTheRowTakesIt) {
  SpeedAxes a = speed_preset("quick");
  a.calibrate = false;
  a.settings.vary(kTcpNodelay, {std::nullopt, 1});
  a.topologies = {netem::TopologyKind::kLoopback};
  std::vector<CellConfig> cells = expand_speed(a);
  ASSERT_FALSE(cells.empty());
  bool rpc_seen = false;
  for (const auto& c : cells) {
    const TransportRow* row = find_transport(c.transport);
    ASSERT_NE(row, nullptr) << c.transport;
    if (c.clients == cells.front().clients && c.size == cells.front().size && c.connect == cells.front().connect) {
      if (!row->floor()) rpc_seen = true;
      EXPECT_FALSE(row->floor() && rpc_seen) << c.transport << " comes after an RPC transport of its group";
    }
    if (c.settings.on(kTcpNodelay)) {
      EXPECT_TRUE(row->takes(kTcpNodelay, Side::kBoth)) << c.transport;
    }
    if (!row->takes(sunrpc::kUdpBufsize, Side::kBoth)) {
      EXPECT_FALSE(c.settings.on(sunrpc::kUdpBufsize)) << c.transport;
    }
  }
  a.transports = {"carrier-pigeon"};
  EXPECT_THROW(expand_speed(a), std::invalid_argument);
}

// levy1989's cap on the bytes a client sends per trial: every transport of
// a group makes the same number of calls (the floor too, so a ratio to it
// compares like with like), 10 at 1 MiB, 100 up to 64 KiB; and warms up
// with the same number, 4 at 1 MiB, 20 up to 64 KiB; an explicit
// --warmup (warmup_bytes 0) is kept at every size.
TEST(SpeedMatrix, Levy1989CapsCallsPerTrialByBytesForEveryTransport) {
  SpeedAxes a = speed_preset("levy1989");
  std::vector<CellConfig> cells = expand_speed(a);
  ASSERT_FALSE(cells.empty());
  std::map<std::string, uint64_t> calls_of_group;
  size_t big = 0;
  for (const auto& c : cells) {
    if (is_calibration(c.transport)) continue;
    EXPECT_EQ(c.calls_per_client, c.size >= (size_t{1} << 20) ? 10u : 100u) << c.id();
    EXPECT_EQ(c.warmup, c.size >= (size_t{1} << 20) ? 4u : 20u) << c.id();
    big += c.size >= (size_t{1} << 20);
    auto [at, fresh] = calls_of_group.emplace(speed_group(c), c.calls_per_client);
    EXPECT_EQ(at->second, c.calls_per_client) << c.id() << " differs from its group";
  }
  EXPECT_GT(big, 0u);
  a.warmup_bytes = 0;
  for (const auto& c : expand_speed(a)) EXPECT_EQ(c.warmup, 20u) << c.id();
}

// The at-most-once workload: each transport's NEXT with the server's table
// off and then on, in one group, so their trials take turns.
TEST(SpeedMatrix, AtMostOnceWorkloadPairsEachTransportOffAndOn) {
  SpeedAxes a = speed_preset("quick");
  find_speed_workload("at-most-once")->apply(a);
  std::vector<CellConfig> cells = expand_speed(a);
  ASSERT_EQ(cells.size(), 2 * a.transports.size());
  for (size_t i = 0; i < cells.size(); i += 2) {
    EXPECT_EQ(cells[i].transport, cells[i + 1].transport);
    EXPECT_FALSE(cells[i].at_most_once);
    EXPECT_TRUE(cells[i + 1].at_most_once);
    EXPECT_EQ(cells[i].op, "next");
    EXPECT_EQ(speed_group(cells[i]), speed_group(cells[i + 1]));
    EXPECT_NE(cells[i].id(), cells[i + 1].id());
  }
}

TEST(CellConfig, JsonRoundTrip) {
  for (const auto& c : expand_dependability(dependability_preset("levy1989"))) {
    CellConfig back = CellConfig::from_json(c.to_json());
    EXPECT_EQ(back.id(), c.id());
  }
  EXPECT_THROW(CellConfig::from_json(nlohmann::json{{"experiment", "x"}}), std::invalid_argument);
}

// at_most_once is in a cell's identity only when on, so the cells of runs
// made before it existed keep their ids and --resume still finds them.
TEST(CellConfig, AtMostOnceIsInTheIdentityOnlyWhenOn) {
  CellConfig cell = expand_dependability(dependability_preset("quick")).front();
  EXPECT_FALSE(cell.to_json().contains("at_most_once"));
  cell.at_most_once = true;
  CellConfig back = CellConfig::from_json(cell.to_json());
  EXPECT_TRUE(back.at_most_once);
  EXPECT_EQ(back.id(), cell.id());
  EXPECT_NE(cell.label().find("at-most-once"), std::string::npos);
}

// An open-loop cell's rate is in its identity and label only when set: a
// closed-loop speed cell keeps the JSON it had before the axis (spelt out
// here as runs before it wrote it), so --resume still finds it.
TEST(CellConfig, RateIsInTheIdentityOnlyWhenSet) {
  SpeedAxes a = speed_preset("quick");
  a.transports = {"grpc"};
  a.sizes = {12};
  a.clients = {1};
  a.connects = {ConnectMode::kPersistent};
  a.topologies = {netem::TopologyKind::kLoopback};
  a.calibrate = false;
  std::vector<CellConfig> closed = expand_speed(a);
  ASSERT_EQ(closed.size(), 1u);
  // As run i27-grpc-async-1525 (made before the axis) wrote its grpc cell, but for the counts.
  EXPECT_EQ(closed[0].id(),
            R"({"block":"","calls_per_client":50,"clients":1,"connect":"persistent","drain_stale_replies":false,)"
            R"("drc":0,"experiment":"speed","faults":{"corrupt_pct":0.0,"delay_ms":0.0,"direction":"both",)"
            R"("dup_pct":0.0,"ge_1h_pct":null,"ge_1k_pct":null,"ge_p_pct":null,"ge_r_pct":null,"jitter_ms":0.0,)"
            R"("loss_corr_pct":0.0,"loss_pct":0.0,"profile":"","rate":"","reorder_pct":0.0,"seed":null},)"
            R"("faults_backend":"auto","grpc_retry":false,"hogs":0,"pin":false,"retry_timeout_ms":null,"size":12,)"
            R"("timeout_ms":10000,"topology":"loopback","transport":"grpc","trials":3,"udp_bufsize":0,"warmup":10})");
  EXPECT_EQ(closed[0].label(), "grpc loopback persistent 12 B");

  a.rates = {0, 5000};
  std::vector<CellConfig> cells = expand_speed(a);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].id(), closed[0].id());  // 0 is the closed loop
  ASSERT_TRUE(cells[1].rate_per_s);
  EXPECT_EQ(*cells[1].rate_per_s, 5000);
  EXPECT_EQ(cells[1].to_json().at("rate_per_s"), 5000);
  EXPECT_EQ(cells[1].label(), "grpc loopback persistent 12 B @ 5000/s");
  CellConfig back = CellConfig::from_json(cells[1].to_json());
  EXPECT_TRUE(back.rate_per_s == cells[1].rate_per_s);
  EXPECT_EQ(back.id(), cells[1].id());
  EXPECT_EQ(speed_group(cells[0]), speed_group(cells[1]));  // their trials take turns
}

// rate-sweep: every built-in transport at each rate and closed loop, one
// client, 12 B, loopback, no calibration; a trial fills 0.5 s at its rate.
TEST(SpeedMatrix, RateSweepFillsHalfASecondAtEachRate) {
  SpeedAxes a = speed_preset("rate-sweep");
  std::vector<CellConfig> cells = expand_speed(a);
  ASSERT_EQ(cells.size(), a.transports.size() * a.rates.size());
  for (const CellConfig& c : cells) {
    EXPECT_FALSE(is_calibration(c.transport));
    EXPECT_EQ(c.clients, 1);
    EXPECT_EQ(c.size, 12u);
    EXPECT_EQ(c.topology, netem::TopologyKind::kLoopback);
    if (!c.rate_per_s) {
      EXPECT_EQ(c.calls_per_client, 1000u);
      continue;
    }
    EXPECT_EQ(c.calls_per_client, std::max<uint64_t>(100, static_cast<uint64_t>(*c.rate_per_s / 2))) << c.label();
  }
}

// The retry policy axis: each transport takes the values its row allows
// (library only where the library has a retry to turn on) and says which
// it left out; at-most-once doubles every cell.
TEST(Matrix, RetryPoliciesFollowEachTransportsRowAndAtMostOnceDoubles) {
  auto blocks = dependability_preset("quick");
  AxisOverrides o;
  o.blocks = std::vector<std::string>{"clean"};
  o.retries = std::vector<RetryChoice>{{}, {RetryPolicy::kLibrary, 0}, {RetryPolicy::kApp, 5}};
  o.at_most_once = std::vector<AtMostOnceChoice>{AtMostOnceChoice::kOff, AtMostOnceChoice::kPerServer};
  apply_overrides(blocks, o);
  auto cells = expand_dependability(blocks);
  EXPECT_EQ(count_if_transport(cells, "grpc"), 3u * 2);
  EXPECT_EQ(count_if_transport(cells, "sunrpc-udp"), 2u * 2);
  EXPECT_EQ(count_if_transport(cells, "sunrpc-tcp"), 2u * 2);
  std::set<std::string> seen;
  for (const CellConfig& c : cells) {
    seen.insert(c.transport + " " + c.retry.name() + (c.at_most_once ? " amo" : ""));
    EXPECT_FALSE(c.retry.policy == RetryPolicy::kLibrary && c.transport != "grpc") << c.label();
  }
  EXPECT_TRUE(seen.count("grpc library amo"));
  EXPECT_TRUE(seen.count("sunrpc-tcp app:5"));
  auto notes = retry_policies_left_out(blocks);
  // One note per transport of the table whose row has no library retry to
  // turn on: every one in the clean table but grpc.
  ASSERT_EQ(notes.size(), blocks[0].transports.size() - 1);
  EXPECT_NE(notes[0].find("sunrpc-udp's library retry"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("sunrpc-tcp has no library retry"), std::string::npos) << notes[1];
  for (const std::string& note : notes) EXPECT_EQ(note.find("grpc"), std::string::npos) << note;
}

TEST(RetryChoice, ParsesNoneLibraryAndAppWithItsK) {
  EXPECT_EQ(RetryChoice::parse("none"), RetryChoice{});
  EXPECT_EQ(RetryChoice::parse("library").policy, RetryPolicy::kLibrary);
  EXPECT_EQ(RetryChoice::parse("app:12"), (RetryChoice{RetryPolicy::kApp, 12}));
  EXPECT_EQ(RetryChoice::parse("app:12").name(), "app:12");
  for (const char* bad : {"app", "app:", "app:0", "app:1001", "app:-1", "app:x", "library:2", "none:1", "sometimes"})
    EXPECT_THROW(RetryChoice::parse(bad), std::invalid_argument) << bad;
}

// A table with events lasts a fixed time (10 s unless --duration says);
// an event that cannot end within it is refused before anything runs.
TEST(Matrix, EventCellsLastAFixedTimeTheirEventsFitIn) {
  auto blocks = dependability_preset("quick");
  AxisOverrides o;
  o.profile = "partition";  // at 1 s for 2 s every 6 s
  apply_overrides(blocks, o);
  for (const CellConfig& c : expand_dependability(blocks)) {
    EXPECT_EQ(c.duration_ms, kEventCellMs) << c.label();
    EXPECT_EQ(c.topology, netem::TopologyKind::kTwoHost);
  }
  o.duration_ms = 2999;
  blocks = dependability_preset("quick");
  try {
    apply_overrides(blocks, o);
    ADD_FAILURE() << "a partition ending at 3 s fitted a 2.999 s cell";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ends 3000 ms after the clients start"), std::string::npos) << e.what();
  }
  o.duration_ms = 3000;
  blocks = dependability_preset("quick");
  EXPECT_NO_THROW(apply_overrides(blocks, o));
}

// Server events need no link: a table on loopback stays there.
TEST(Matrix, ServerEventsAloneStayOnLoopback) {
  auto blocks = dependability_preset("quick");
  AxisOverrides o;
  o.blocks = std::vector<std::string>{"clean"};
  o.profile = "server-crash";
  apply_overrides(blocks, o);
  for (const CellConfig& c : expand_dependability(blocks)) EXPECT_EQ(c.topology, netem::TopologyKind::kLoopback);
}

// The library policy keeps the key older cells had (grpc_retry); app and
// its K, and a duration, are in the identity only when set.
TEST(CellConfig, RetryPolicyAndDurationKeepOlderIdentities) {
  CellConfig cell = expand_dependability(dependability_preset("quick")).front();
  nlohmann::json j = cell.to_json();
  EXPECT_EQ(j["grpc_retry"], false);
  EXPECT_FALSE(j.contains("app_retries"));
  EXPECT_FALSE(j.contains("duration_ms"));
  j["grpc_retry"] = true;  // a cell of a run made with --grpc-retry before --retry-policy
  EXPECT_EQ(CellConfig::from_json(j).retry.policy, RetryPolicy::kLibrary);
  cell.retry = {RetryPolicy::kApp, 4};
  cell.duration_ms = 8000;
  CellConfig back = CellConfig::from_json(cell.to_json());
  EXPECT_EQ(back.retry, cell.retry);
  EXPECT_EQ(back.duration_ms, 8000);
  EXPECT_EQ(back.id(), cell.id());
  EXPECT_NE(cell.label().find("retry app:4"), std::string::npos) << cell.label();
}


// A count given on the command line is every cell's, the cascade cells'
// too (the preset's quarter is checked above).
TEST(Matrix, CallsGivenOnTheCommandLineAreEveryCellsCount) {
  auto blocks = dependability_preset("levy1989");
  AxisOverrides o;
  o.calls = 800;
  apply_overrides(blocks, o);
  for (const auto& c : expand_dependability(blocks)) {
    if (c.block != "load") continue;
    EXPECT_EQ(c.total_calls(), 800u) << c.label();
  }
}

// A table about sunrpc-udp's own options (the reply cache, the retransmit
// interval) is not turned into another transport's cells by --transports:
// it is left out, and said so; naming only what no table runs is refused.
TEST(Matrix, TransportsPickAmongATablesOwnAndLeaveOutATableAboutAnother) {
  auto blocks = dependability_preset("failures");
  AxisOverrides o;
  o.transports = std::vector<std::string>{"grpc"};
  std::vector<std::string> notes = apply_overrides(blocks, o);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].name, "failures");
  EXPECT_EQ(blocks[0].transports, std::vector<std::string>{"grpc"});
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "table failures-udp is about sunrpc-udp and --transports does not name it: left out");

  blocks = dependability_preset("failures");
  o.transports = std::vector<std::string>{"sunrpc-udp", "xmlrpc"};
  EXPECT_TRUE(apply_overrides(blocks, o).empty());
  EXPECT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[1].transports, std::vector<std::string>{"sunrpc-udp"}) << "xmlrpc is not added to a udp table";

  blocks = dependability_preset("remedies");
  o.transports = std::vector<std::string>{"grpc"};
  try {
    apply_overrides(blocks, o);
    ADD_FAILURE() << "remedies ran grpc";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--transports grpc: no table of this preset runs it"), std::string::npos)
        << e.what();
  }
}

// levy-surface (issue 26): 8 intervals from 20 ms to 15 s on a log scale x
// 4 loads, 48 short trials each; the reply cache at the 3 shortest, 12
// trials each; within the 25 minutes the issue gives, by the plan's estimate.
TEST(Matrix, LevySurfaceIsIntervalsByLoadsWithinItsBudget) {
  const std::vector<int64_t>& ms = levy_surface_intervals_ms();
  ASSERT_GE(ms.size(), 7u);
  EXPECT_EQ(ms.front(), 20);
  EXPECT_EQ(ms.back(), 15000);
  for (size_t i = 1; i < ms.size(); i++) {  // a log scale: each a like multiple of the one before
    double ratio = static_cast<double>(ms[i]) / static_cast<double>(ms[i - 1]);
    EXPECT_GT(ratio, 2.3) << ms[i];
    EXPECT_LT(ratio, 2.8) << ms[i];
  }
  auto cells = expand_dependability(dependability_preset("levy-surface"));
  ASSERT_EQ(cells.size(), 8u * 4u + 3u * 4u);
  std::map<std::pair<int64_t, int>, int> plain, cache;
  for (const CellConfig& c : cells) {
    EXPECT_EQ(c.transport, "sunrpc-udp");
    EXPECT_EQ(c.clients, 8);
    EXPECT_EQ(c.total_calls(), 400u);
    EXPECT_TRUE(netem::is_empty(c.faults));
    auto retry = c.settings.get(kRetryTimeout);
    ASSERT_TRUE(retry.has_value());
    bool cached = c.settings.on(sunrpc::kReplyCache);
    EXPECT_EQ(c.block, cached ? "levy-surface-drc" : "levy-surface");
    (cached ? cache : plain)[{*retry, c.hogs}] = c.trials;
  }
  for (int64_t r : ms)
    for (int h : {0, 5, 10, 20}) EXPECT_EQ((plain[{r, h}]), 48) << r << " ms, load " << h;
  for (int64_t r : levy_surface_cache_intervals_ms())
    for (int h : {0, 5, 10, 20}) EXPECT_EQ((cache[{r, h}]), 12) << r << " ms, load " << h;
  SurfacePlan plan = plan_of(cells);
  EXPECT_EQ(plan.cells, 44u);
  EXPECT_EQ(plan.trials, 32u * 48u + 12u * 12u);
  // 1,680 trials at 0.5 s each and 400 calls at 50 us x (hogs + 1).
  EXPECT_NEAR(plan.estimated_s, 1680 * 0.5 + 400 * 50e-6 * (48 * 8 + 12 * 3) * (1 + 6 + 11 + 21), 1e-6);
  EXPECT_LT(plan.estimated_s, 25 * 60);
}

// Two cells, two trials: the preset as its end-to-end test runs it.
TEST(Matrix, LevySurfaceShrinksByFlags) {
  auto blocks = dependability_preset("levy-surface");
  AxisOverrides o;
  o.blocks = std::vector<std::string>{"levy-surface"};
  o.hogs = std::vector<int>{0};
  o.settings.vary(kRetryTimeout, {20, 15000});
  o.trials = 2;
  apply_overrides(blocks, o);
  auto cells = expand_dependability(blocks);
  ASSERT_EQ(cells.size(), 2u);
  for (const CellConfig& c : cells) EXPECT_EQ(c.trials, 2);
}

}  // namespace
}  // namespace rpclab::harness
