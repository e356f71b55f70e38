#include "harness/dependability/matrix.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "harness/dependability/levy_surface.h"
#include "harness/paths/path_table.h"
#include "netem/config/backend_choice.h"
#include "netem/config/fault_config.h"
#include "netem/config/fault_events.h"
#include "netem/config/fault_profile.h"
#include "netem/spec/fault_fields.h"
#include "netem/spec/spec_error.h"
#include "sunrpc/sunrpc_settings.h"
#include "transport/adapter_table.h"

namespace rpclab::harness {
namespace {

using netem::FaultSpec;
using netem::TopologyKind;

// Every RPC system of the tables (xmlrpc-pstream, xmlrpc-c's variant
// without HTTP, runs when named: docs/running.md says why not here).
const std::vector<std::string> kAllRpc = {"sunrpc-udp", "sunrpc-tcp", "grpc", "xmlrpc", "jsonrpc"};
const std::vector<std::string> kStreamRpc = {"sunrpc-tcp", "grpc", "xmlrpc", "jsonrpc"};
// levy1989 gives these half the calls of the others, so that `make
// run-dependability` stays within 25 minutes.
const std::vector<std::string> kHttpRpc = {"xmlrpc", "jsonrpc"};

// The levy1989 preset's size, in one place to retune: every cell runs as
// kLevyTrials independent trials, each of this many calls shared by its 8
// clients (kHttpRpc's cells: half as many). docs/dependability.md ("The
// presets") says why these numbers; `make run-dependability` must stay
// within 25 minutes on a 2-core VM.
constexpr int kLevyTrials = 5;
constexpr uint64_t kLevyLoadCallsPerTrial = 16000;   // 80,000 a cell
constexpr uint64_t kLevyFaultCallsPerTrial = 3200;   // 16,000 a cell
constexpr double kLevyCascadeShare = 0.25;           // 4,000 a trial, 20,000 a cell
// The adapters' share of a levy1989 table's calls (docs/adapters.md): a
// quarter keeps `make run-dependability` within its 25 minutes with two
// adapters built, and still bounds a zero at 50 per million (load) and 250
// per million (faults).
constexpr double kLevyAdapterShare = 0.25;
constexpr int kShortRetryMs = 20;   // the "short" retransmit interval of the issue and the notes
constexpr int kFaultTimeoutMs = 1000;

// A table of every RPC system runs the adapters built when rpclab started
// beside the rows rpclab ships (`stream_only`: a table of stream
// transports), each with `share` of the table's calls; adapters not built
// are left out with the reason (adapters_left_out, in the run's notes).
void add_adapters(Block& b, bool stream_only, double share = 1.0) {
  for (const std::string& t : adapter_row_names(stream_only)) {
    b.transports.push_back(t);
    if (share != 1.0) b.call_share[t] = share;
  }
}

FaultSpec dup_only(double pct) {
  FaultSpec f;
  f.dup_pct = pct;
  return f;
}

FaultSpec loss_and_dup(double loss, double dup) {
  FaultSpec f;
  f.loss_pct = loss;
  f.dup_pct = dup;
  return f;
}

// Levy's table: load on the server, nothing on the network (loopback, so it
// runs without root), 100,000 calls per cell over its trials; then loss x
// duplication on the two-host link at load 0. Under loss a 15 s retransmit
// interval would cost 15 s per lost packet, so the faults table uses the
// short interval and a 1 s total timeout for every transport (which also
// shows how timeouts lie).
std::vector<Block> levy1989() {
  // Eight clients share a trial's calls: under 20 hogs the server gets a
  // twenty-first of its CPU and one client would wait ~6 ms a call; eight
  // keep its queue busy, as a real server's would be.
  Block load{"load", {"sunrpc-udp", "sunrpc-tcp", "grpc"}};
  load.hogs = {0, 5, 10, 20};
  load.settings.vary(kRetryTimeout, {std::nullopt, kShortRetryMs});
  load.clients = {8};
  load.calls = kLevyLoadCallsPerTrial;
  load.trials = kLevyTrials;
  // sunrpc-udp at the 20 ms interval under 5, 10 and 20 hogs: 79,810 of
  // 80,000 calls ran twice at load 20 (run 20261126-012900), and those three
  // cells took 16 of its 43 minutes. A quarter of the calls shows the same
  // cascade in every trial and keeps the run within its 25 minutes.
  load.cascade_share = kLevyCascadeShare;

  Block faults{"faults", {"sunrpc-udp", "sunrpc-tcp", "grpc"}};
  faults.faults = fault_grid({0, 1, 5}, {0, 1, 5}, netem::Direction::kBoth);
  faults.settings.vary(kRetryTimeout, {kShortRetryMs});
  faults.clients = {8};
  // The cells under 5% loss cost the most (TCP and gRPC wait out
  // retransmissions: ~300 calls/s).
  faults.calls = kLevyFaultCallsPerTrial;
  faults.trials = kLevyTrials;
  faults.timeout_ms = kFaultTimeoutMs;
  faults.topology = TopologyKind::kTwoHost;

  // XML-RPC and JSON-RPC over HTTP get half the calls: a 5% loss cell costs
  // them as much as it costs Sun RPC over TCP (about 70 s for 20,000
  // calls), and a load cell twice its CPU. Their 50,000 and 10,000 calls a
  // cell bound a zero at 60 and 300 per million.
  for (const std::string& t : kHttpRpc) {
    load.transports.push_back(t);
    load.call_share[t] = 0.5;
    faults.transports.push_back(t);
    faults.call_share[t] = 0.5;
  }
  add_adapters(load, false, kLevyAdapterShare);
  add_adapters(faults, false, kLevyAdapterShare);
  return {load, faults};
}

// What fixes what: the reply cache and draining stale replies, alone and
// together, under duplication, loss, and both.
std::vector<Block> remedies() {
  Block b{"remedies", {"sunrpc-udp"}};
  b.about_these_transports = true;
  b.faults = {dup_only(5), loss_and_dup(5, 0), loss_and_dup(5, 5)};
  b.settings.vary(kRetryTimeout, {kShortRetryMs});
  b.settings.vary(sunrpc::kReplyCache, {std::nullopt, 1024});
  b.settings.vary(sunrpc::kDrainStaleReplies, {std::nullopt, 1});
  b.calls = 3000;
  b.trials = 3;
  b.timeout_ms = kFaultTimeoutMs;
  b.topology = TopologyKind::kTwoHost;
  return {b};
}

// CI: every transport clean on loopback, then 5% duplication on the link.
std::vector<Block> quick() {
  Block clean{"clean", kAllRpc};
  clean.calls = 1000;
  clean.trials = 3;

  Block udp_dup{"udp-dup", {"sunrpc-udp"}};
  udp_dup.about_these_transports = true;
  udp_dup.faults = {dup_only(5)};
  udp_dup.settings.vary(kRetryTimeout, {kShortRetryMs});
  udp_dup.settings.vary(sunrpc::kReplyCache, {std::nullopt, 1024});
  udp_dup.calls = 1000;
  udp_dup.trials = 3;
  udp_dup.timeout_ms = kFaultTimeoutMs;
  udp_dup.topology = TopologyKind::kTwoHost;

  Block stream_dup = udp_dup;
  stream_dup.name = "stream-dup";
  stream_dup.transports = kStreamRpc;
  stream_dup.about_these_transports = false;
  stream_dup.settings = {};
  stream_dup.calls = 1000;
  add_adapters(clean, false);
  add_adapters(stream_dup, true);
  return {clean, udp_dup, stream_dup};
}

// A transport the preset or --transports names; both are checked against
// the table before expansion.
const TransportRow& row_of(const std::string& transport) {
  const TransportRow* row = find_transport(transport);
  if (!row) throw std::invalid_argument("unknown transport '" + transport + "' (known: " + transport_names() + ")");
  return *row;
}

// A cell's calls per trial: the block's, times its transport's share, times
// the cascade share for a cell under load whose client retransmits on a
// short interval (there nearly every call runs twice while the server has a
// hog's share of its CPU, so a few such cells would cost most of a run).
uint64_t calls_for(const Block& b, const CellConfig& c) {
  auto share = b.call_share.find(c.transport);
  double fraction = share == b.call_share.end() ? 1.0 : share->second;
  if (c.hogs > 0 && c.settings.on(kRetryTimeout)) fraction *= b.cascade_share;
  return static_cast<uint64_t>(static_cast<double>(b.calls) * fraction);
}

// The failures TCP cannot hide (issue 11): each kind of timed event alone,
// repeated through a 5 s trial, against a 1 s deadline; each retry policy
// a transport's row allows (none, library where there is one to turn on,
// the client's own loop); the server's at-most-once table off and on. A
// second table gives sunrpc-udp the 20 ms retransmit interval with and
// without the reply cache (with the stock 15 s interval nothing is
// retransmitted within the deadline, so the cache would see nothing). The
// cache is crossed with at-most-once off only: with both on, the
// at-most-once table answers every repeat before the cache is asked.
// Sized to run within 20 minutes on a 2-core VM: 56 + 24 cells of 2
// trials, about 6 s a trial with the link's setup.
constexpr int64_t kFailuresTrialMs = 5000;
constexpr int kFailuresAppRetries = 5;  // 50+100+200+400+800 ms of backoff: outlasts a 1 s crash, a 1.5 s stall

FaultSpec event_only(const std::string& event) { return netem::parse_profile("event = " + event + "\n", ""); }

Block failures_block(const std::string& name, const std::vector<std::string>& transports) {
  Block b{name, transports};
  // Each twice in a trial; a partition and a stall outlast the deadline, a
  // crash's restart comes within it.
  b.faults = {event_only("server-crash at=1s for=1s every=2500ms"),
              event_only("partition at=500ms for=2s every=2500ms"),
              event_only("reset at=500ms every=1s"),
              event_only("server-stall at=1s for=1500ms every=2500ms")};
  b.retries = {RetryChoice{}, RetryChoice{RetryPolicy::kLibrary, 0},
               RetryChoice{RetryPolicy::kApp, kFailuresAppRetries}};
  b.at_most_once = {AtMostOnceChoice::kOff, AtMostOnceChoice::kPerServer};
  b.calls = 1000000;  // a cap: the trial lasts kFailuresTrialMs
  b.duration_ms = kFailuresTrialMs;
  b.trials = 2;
  b.timeout_ms = kFaultTimeoutMs;
  b.topology = TopologyKind::kTwoHost;
  return b;
}

std::vector<Block> failures() {
  // The three and the adapters built; the text transports are one
  // --transports away.
  Block all = failures_block("failures", {"sunrpc-udp", "sunrpc-tcp", "grpc"});
  add_adapters(all, false);
  Block udp = failures_block("failures-udp", {"sunrpc-udp"});
  udp.about_these_transports = true;
  udp.settings.vary(kRetryTimeout, {kShortRetryMs});
  udp.settings.vary(sunrpc::kReplyCache, {std::nullopt, 1024});
  udp.at_most_once = {AtMostOnceChoice::kOff};
  Block udp_at_most_once = udp;
  udp_at_most_once.name = "failures-udp-amo";
  udp_at_most_once.settings.vary(sunrpc::kReplyCache, {std::nullopt});
  udp_at_most_once.at_most_once = {AtMostOnceChoice::kPerServer};
  return {all, udp, udp_at_most_once};
}

// The levy-surface preset (issue 26): sunrpc-udp's retransmit interval on
// a log scale (levy_surface.h) against the load on the server, many short
// trials a cell, so that the probability that a trial has a cascade (an
// onset) can be read with an exact interval over trials. Its two tables:
// levy-surface (interval x load, no cache) and levy-surface-drc (the
// cache's intervals x load, cache on).
// Trials a cell: 48 give a Clopper-Pearson interval at most 0.30 wide at
// k = 24 (p = 0.5), the widest case; the cache's cells ask only whether
// the cache removes the silent errors, 12 trials each (a zero in 12 bounds
// the onset probability below 0.27). docs/dependability.md, "levy-surface",
// has the arithmetic.
constexpr int kSurfaceTrials = 48;
constexpr int kSurfaceCacheTrials = 12;
// 50 calls for each of 8 clients: an onset needs one late reply, and a
// short trial keeps 1,680 of them within the run's 25 minutes.
constexpr int kSurfaceClients = 8;
constexpr uint64_t kSurfaceCallsPerTrial = 400;
constexpr int kSurfaceCacheSlots = 1024;  // as the remedies preset's

std::vector<SettingValue> ms_axis(const std::vector<int64_t>& ms) {
  std::vector<SettingValue> axis;
  for (int64_t v : ms) axis.push_back(v);
  return axis;
}

Block surface_block(const char* name, const std::vector<int64_t>& intervals, int trials) {
  Block b{name, {"sunrpc-udp"}};
  b.about_these_transports = true;
  b.hogs = {0, 5, 10, 20};
  b.settings.vary(kRetryTimeout, ms_axis(intervals));
  b.clients = {kSurfaceClients};
  b.calls = kSurfaceCallsPerTrial;
  b.trials = trials;
  return b;
}

std::vector<Block> levy_surface() {
  Block plain = surface_block("levy-surface", levy_surface_intervals_ms(), kSurfaceTrials);
  Block cache = surface_block("levy-surface-drc", levy_surface_cache_intervals_ms(), kSurfaceCacheTrials);
  cache.settings.vary(sunrpc::kReplyCache, {kSurfaceCacheSlots});
  return {plain, cache};
}

// The paths preset (issue 38): the path people deploy, a proxy or a
// balancing client before two replicas, under one replica's failure, with
// each proxy's default beside the retry settings operators turn on. Every
// transport goes through each path that can carry it (path_refusal says
// which cannot: Caddy has no TCP or UDP proxy in Debian's build, HAProxy
// no UDP). The events strike replica 1 (path_servers.h) twice in a 3 s
// trial: a stall outlasts the proxies' 300 ms upstream timeout
// (kUpstreamTimeoutMs) and ends within the client's 2 s, so a proxy that
// re-sends has time to, and the stalled replica runs the call when it
// resumes; a crash kills replica 1 with calls in flight and restarts it.
// The second table asks what stops the duplicates: the at-most-once table
// each replica keeps, and one in Redis they share, on the paths that
// duplicated. Sized to stay within 25 minutes on a 2-core VM: 82 cells of
// 3 trials, about 5 s a trial with its namespaces, replicas and proxy.
constexpr int64_t kPathTrialMs = 3000;
constexpr int kPathTimeoutMs = 2000;
constexpr int kPathUdpRetryMs = 100;  // several resends within the stall, some after nginx's 300 ms session
constexpr int kPathReplicas = 2;
constexpr int kPathTrials = 3;

std::vector<FaultSpec> replica_events() {
  return {FaultSpec{}, event_only("server-stall at=300ms for=600ms every=1200ms"),
          event_only("server-crash at=300ms for=500ms every=1200ms")};
}

Block path_block(const char* name, const std::vector<std::string>& transports, const std::vector<std::string>& paths) {
  Block b{name, transports};
  b.paths = paths;
  b.replicas = {kPathReplicas};
  b.faults = replica_events();
  b.settings.vary(kRetryTimeout, {kPathUdpRetryMs});
  b.settings.vary(sunrpc::kReplyCache, {1024});  // Sun RPC over UDP with its reply cache: Levy's remedy, per replica
  b.clients = {4};
  b.calls = 1000000;  // a cap: the trial lasts kPathTrialMs
  b.duration_ms = kPathTrialMs;
  b.trials = kPathTrials;
  b.timeout_ms = kPathTimeoutMs;
  return b;
}

std::vector<Block> paths_preset() {
  std::vector<std::string> every;
  for (const PathRow& p : paths()) every.push_back(std::string(p.name));
  Block all = path_block("paths", {"grpc", "sunrpc-tcp", "jsonrpc", "sunrpc-udp"}, every);
  Block remedies = path_block("paths-remedies", {"grpc", "jsonrpc", "sunrpc-udp"},
                              {"haproxy-retry", "haproxy-retry-all", "nginx-retry", "nginx"});
  remedies.faults.erase(remedies.faults.begin());  // no event, nothing to stop
  remedies.at_most_once = {AtMostOnceChoice::kPerServer, AtMostOnceChoice::kShared};
  // One path each where the first table's proxy re-sends: HAProxy's for
  // gRPC, nginx's for JSON-RPC, nginx's UDP balancer for Sun RPC.
  remedies.path_transports = {{"haproxy-retry", {"grpc"}}, {"haproxy-retry-all", {"grpc"}},
                              {"nginx-retry", {"jsonrpc"}}, {"nginx", {"sunrpc-udp"}}};
  return {all, remedies};
}

// The other replica events (issue 38), a preset of their own: the paths
// preset took 17 min 50 s of its 25, and these three as a fault axis of its
// first table would add two thirds to it. Replica 1's connections reset
// (ss -K in its namespace) while calls are in flight, replica 1 out of
// the proxy's pool for 600 ms by the proxy's own mechanism (HAProxy's
// runtime API, nginx's reload, Caddy's admin API; a path without a proxy
// refuses it with the reason), and replica 1's link slowed past the
// proxies' upstream timeout (skipped, with the reason, on a kernel
// without netem). Caddy's default path only: its retry row re-sent
// nothing in the paths preset.
std::vector<Block> paths_events_preset() {
  Block b = path_block("paths-events", {"grpc", "jsonrpc", "sunrpc-tcp"},
                       {"haproxy", "haproxy-retry-all", "nginx", "nginx-retry", "caddy", "grpc-round-robin"});
  b.faults = {event_only("server-reset at=300ms every=600ms"),
              event_only("server-out-of-pool at=300ms for=600ms every=1200ms"),
              event_only("server-slow at=300ms for=600ms every=1200ms delay=400ms")};
  return {b};
}

// The presets, one row each: its name, what it asks (for --help), and its
// tables.
struct Preset {
  const char* name;
  const char* summary;
  std::vector<Block> (*blocks)();
};
const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = {
      {"levy1989", "Levy's tables: server load, and loss x duplication between two hosts (make run-dependability; "
                   "about half an hour on 2 cores)",
       levy1989},
      {"remedies", "what stops sunrpc-udp's duplicates: the reply cache and draining stale replies", remedies},
      {"quick", "every transport without faults, then 5% duplication (about a minute)", quick},
      {"failures", "crashes, partitions, resets and stalls, x retry policies and at-most-once", failures},
      {"levy-surface", "the retransmit interval against server load: where duplicates begin", levy_surface},
      {"paths", "proxies (HAProxy, nginx, Caddy) and gRPC's balancing before two replicas, one stalled or crashed, x "
                "their retry settings and at-most-once per replica or shared (make run-dependability PRESET=paths)",
       paths_preset},
      {"paths-events", "the same paths before two replicas, replica 1's connections reset, it out of the proxy's "
                       "pool, its link slowed (make run-dependability PRESET=paths-events)",
       paths_events_preset}};
  return table;
}

bool has_events(const Block& b) {
  return std::any_of(b.faults.begin(), b.faults.end(), [](const FaultSpec& f) { return !f.events.empty(); });
}

// When the block's first event is planned to start, from the clients' start.
int64_t first_event_ms(const Block& b) {
  int64_t first = -1;
  for (const FaultSpec& f : b.faults)
    for (const netem::FaultEvent& e : f.events)
      if (first < 0 || e.at_ms < first) first = e.at_ms;
  return first;
}

// Faults that are all server events (a crash, a stall) need no link: such
// a table may stay on loopback.
bool server_events_only(const Block& b) {
  for (const FaultSpec& f : b.faults) {
    FaultSpec steady = f;
    steady.events.clear();
    if (!netem::is_empty(steady)) return false;
    for (const netem::FaultEvent& e : f.events)
      if (e.kind->target != netem::EventTarget::kServer) return false;
  }
  return true;
}

// The axis' retry policies that `transport`'s row allows (library only
// where the library has a retry to turn on); none when it allows none.
std::vector<RetryChoice> retries_for(const std::string& transport, const std::vector<RetryChoice>& axis) {
  std::vector<RetryChoice> kept;
  const TransportRow* row = find_transport(transport);
  for (const RetryChoice& r : axis)
    if (row && !retry_policy_refusal(*row, r.policy) && std::find(kept.begin(), kept.end(), r) == kept.end())
      kept.push_back(r);
  if (kept.empty()) kept.push_back(RetryChoice{});
  return kept;
}

// Keeps the tables named by --tables; every name must be one of the preset's.
void keep_tables(std::vector<Block>& blocks, const std::vector<std::string>& names) {
  std::string known;
  for (const Block& b : blocks) known += (known.empty() ? "" : ", ") + b.name;
  for (const std::string& name : names)
    if (std::none_of(blocks.begin(), blocks.end(), [&](const Block& b) { return b.name == name; }))
      throw std::invalid_argument("--tables: '" + name + "' is not a table of this preset (its tables: " + known + ")");
  blocks.erase(std::remove_if(blocks.begin(), blocks.end(),
                              [&](const Block& b) { return std::find(names.begin(), names.end(), b.name) == names.end(); }),
               blocks.end());
}

// What can be known before any cell runs: each client needs a call of its
// own, and a backend named with --faults-backend must be able to apply the
// table's faults at all (nftables cannot delay). `calls_flag` sets the
// table's count.
void check_block(const Block& b, const std::string& calls_flag) {
  int clients = *std::max_element(b.clients.begin(), b.clients.end());
  if (b.calls < static_cast<uint64_t>(clients))
    throw std::invalid_argument(fmt::format(
        "table {}: {} calls per trial cannot be shared by {} clients (each needs at least one): give {} {} or more, "
        "or fewer --clients", b.name, b.calls, clients, calls_flag, clients));
  for (const FaultSpec& f : b.faults) netem::check_backend_can_apply(b.faults_backend, f);
  for (const FaultSpec& f : b.faults)
    for (const netem::FaultEvent& e : f.events)
      if (b.duration_ms && e.first_end_ms() > *b.duration_ms)
        throw std::invalid_argument(fmt::format(
            "table {}: the event '{}' ends {} ms after the clients start, and a cell lasts {} ms: give --duration {} "
            "or more, or an event that ends sooner", b.name, netem::summary(e), e.first_end_ms(), *b.duration_ms,
            (e.first_end_ms() + 999) / 1000));
}

}  // namespace

std::vector<FaultSpec> fault_grid(const std::vector<double>& loss_pct, const std::vector<double>& dup_pct,
                                  netem::Direction direction) {
  std::vector<FaultSpec> grid;
  for (double loss : loss_pct)
    for (double dup : dup_pct) {
      FaultSpec f = loss_and_dup(loss, dup);
      f.direction = direction;
      netem::validate(f);
      grid.push_back(f);
    }
  return grid;
}

std::vector<std::string> dependability_presets() {
  std::vector<std::string> names;
  for (const Preset& p : presets()) names.push_back(p.name);
  return names;
}

std::vector<std::pair<std::string, std::string>> dependability_preset_summaries() {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const Preset& p : presets()) rows.push_back({p.name, p.summary});
  return rows;
}

std::string dependability_presets_help() {
  std::string help;
  for (const Preset& p : presets()) help += (help.empty() ? "" : "; ") + std::string(p.name) + ": " + p.summary;
  return help;
}

std::string dependability_tables_help() {
  std::string help;
  for (const Preset& p : presets()) {
    std::string tables;
    for (const Block& b : p.blocks()) tables += (tables.empty() ? "" : ", ") + b.name;
    help += (help.empty() ? "" : "; ") + tables + " (" + p.name + ")";
  }
  return "only these tables of the preset: " + help;
}

std::vector<Block> dependability_preset(const std::string& name) {
  std::string known;
  for (const Preset& p : presets()) {
    if (name == p.name) return p.blocks();
    known += (known.empty() ? "" : ", ") + std::string(p.name);
  }
  throw std::invalid_argument("unknown preset '" + name + "' (known: " + known + ")");
}

namespace {

// --transports replaces a table's transports, except in a table about its
// own transports' options (the reply cache, the retransmit interval), where
// it picks among them; a table left with none is left out.
std::vector<std::string> narrow_transports(std::vector<Block>& blocks, const std::vector<std::string>& named) {
  for (const std::string& t : named)
    if (!find_transport(t)) throw std::invalid_argument("unknown transport '" + t + "' (known: " + transport_names() + ")");
  std::vector<std::string> notes;
  std::vector<Block> kept;
  for (Block& b : blocks) {
    if (!b.about_these_transports) {
      b.transports = named;
    } else {
      std::vector<std::string> picked;
      for (const std::string& t : b.transports)
        if (std::find(named.begin(), named.end(), t) != named.end()) picked.push_back(t);
      if (picked.empty()) {
        notes.push_back(fmt::format("table {} is about {} and --transports does not name it: left out", b.name,
                                    fmt::join(b.transports, ", ")));
        continue;
      }
      b.transports = picked;
    }
    kept.push_back(b);
  }
  if (kept.empty())
    throw std::invalid_argument(fmt::format("--transports {}: no table of this preset runs it ({})",
                                            fmt::join(named, ","), fmt::join(notes, "; ")));
  blocks.swap(kept);
  return notes;
}

}  // namespace

std::vector<std::string> apply_overrides(std::vector<Block>& blocks, const AxisOverrides& o) {
  if (o.blocks) keep_tables(blocks, *o.blocks);
  std::vector<std::string> notes;
  if (o.transports) notes = narrow_transports(blocks, *o.transports);
  std::optional<std::vector<FaultSpec>> faults;
  netem::Direction direction = netem::Direction::kBoth;
  if (o.direction) {
    auto d = netem::parse_direction(*o.direction);
    if (!d) throw netem::SpecError("--direction: '" + *o.direction + "' is not to-server, to-client or both");
    direction = *d;
  }
  if (o.profile) faults = std::vector<FaultSpec>{netem::load_profile(*o.profile)};
  if (o.loss_pct || o.dup_pct)
    faults = fault_grid(o.loss_pct.value_or(std::vector<double>{0}), o.dup_pct.value_or(std::vector<double>{0}),
                        direction);
  if (o.profile && o.direction) faults->front().direction = direction;
  for (Block& b : blocks) {
    bool had_faults = b.faults.size() > 1 || !netem::is_empty(b.faults.front());
    if (o.hogs) b.hogs = *o.hogs;
    if (faults) b.faults = *faults;
    if (o.direction && !faults)
      for (FaultSpec& f : b.faults) f.direction = direction;  // the preset's own faults, turned around
    b.settings.override_with(o.settings);
    if (o.clients) b.clients = *o.clients;
    if (o.connects) b.connects = *o.connects;
    if (had_faults ? o.fault_calls.has_value() : o.calls.has_value()) {
      b.calls = had_faults ? *o.fault_calls : *o.calls;
      b.call_share.clear();  // a count given on the command line is every transport's, every cell's
      b.cascade_share = 1.0;
    }
    if (o.timeout_ms) b.timeout_ms = o.timeout_ms;
    if (o.topology) b.topology = *o.topology;
    if (o.faults_backend) b.faults_backend = *o.faults_backend;
    if (o.no_pin) b.pin = false;
    if (o.retries) b.retries = *o.retries;
    if (o.at_most_once) b.at_most_once = *o.at_most_once;
    if (o.paths) {
      b.paths = *o.paths;
      b.path_transports.clear();
    }
    if (o.replicas) b.replicas = *o.replicas;
    if (o.duration_ms) b.duration_ms = o.duration_ms;
    if (o.trials) b.trials = *o.trials;
    bool has_faults = b.faults.size() > 1 || !netem::is_empty(b.faults.front());
    if (has_faults && b.topology == TopologyKind::kLoopback && !server_events_only(b))
      b.topology = TopologyKind::kTwoHost;  // faults live on the link between two hosts
    if (has_events(b) && !b.duration_ms) b.duration_ms = kEventCellMs;
    check_block(b, had_faults ? "--fault-calls" : "--calls");
    // How fast the calls go is not known before they run: a count given on
    // the command line may end a trial before its events, which then fails.
    if (has_events(b) && (had_faults ? o.fault_calls : o.calls))
      notes.push_back(fmt::format(
          "table {}: {} {} caps each trial, which lasts {} ms with events from {} ms on; a trial whose calls are "
          "done before an event starts fails (not a measurement). Without {} the trial runs for its duration",
          b.name, had_faults ? "--fault-calls" : "--calls", b.calls, *b.duration_ms, first_event_ms(b),
          had_faults ? "--fault-calls" : "--calls"));
  }
  return notes;
}

std::vector<std::string> uneven_splits(const std::vector<Block>& blocks) {
  std::vector<std::string> notes;
  for (const Block& b : blocks)
    for (int clients : b.clients) {
      uint64_t each = b.calls / static_cast<uint64_t>(clients);
      if (b.calls % static_cast<uint64_t>(clients) == 0) continue;
      notes.push_back(fmt::format("table {}: {} calls do not split evenly over {} clients; each client makes {}, "
                                  "{} in all", b.name, b.calls, clients, each, each * static_cast<uint64_t>(clients)));
    }
  return notes;
}

std::optional<AtMostOnceChoice> parse_at_most_once(const std::string& text) {
  if (text == "off") return AtMostOnceChoice::kOff;
  if (text == "on") return AtMostOnceChoice::kPerServer;
  if (text == "shared") return AtMostOnceChoice::kShared;
  return std::nullopt;
}

std::vector<std::string> paths_left_out(const std::vector<Block>& blocks) {
  std::vector<std::string> notes;
  for (const Block& b : blocks)
    for (const std::string& name : b.paths) {
      if (name.empty()) continue;
      const PathRow* path = find_path(name);
      if (!path) throw std::invalid_argument("unknown path '" + name + "' (known: " + path_names() + ")");
      auto only = b.path_transports.find(name);
      for (const std::string& t : b.transports) {
        if (only != b.path_transports.end() &&
            std::find(only->second.begin(), only->second.end(), t) == only->second.end())
          continue;
        if (!b.path_transports.empty() && only == b.path_transports.end()) continue;
        std::vector<std::string> refused;
        replica_counts(*path, row_of(t), b.replicas, &refused);
        for (const std::string& why : refused) notes.push_back(fmt::format("table {}: {} (not planned)", b.name, why));
      }
    }
  std::sort(notes.begin(), notes.end());
  notes.erase(std::unique(notes.begin(), notes.end()), notes.end());
  return notes;
}

std::vector<std::string> retry_policies_left_out(const std::vector<Block>& blocks) {
  std::vector<std::string> notes;
  for (const Block& b : blocks)
    for (const std::string& transport : b.transports) {
      const TransportRow* row = find_transport(transport);
      for (const RetryChoice& r : b.retries)
        if (row)
          if (auto why = retry_policy_refusal(*row, r.policy))
            notes.push_back(fmt::format("table {}: {} (its cells run without it)", b.name, *why));
    }
  return notes;
}

namespace {

// Every cell of `cells` once per value of an axis, the values' order inner
// to the cells': `values(cell)` gives the values that apply to that cell,
// `set(cell, value)` puts one in.
template <typename Values, typename Set>
void fan_out(std::vector<CellConfig>& cells, Values values, Set set) {
  std::vector<CellConfig> out;
  for (const CellConfig& c : cells)
    for (const auto& v : values(c)) {
      CellConfig d = c;
      set(d, v);
      out.push_back(d);
    }
  cells.swap(out);
}

// The (path, replicas) pairs of the block that carry `c`'s transport: ""
// (no path) with one server; a path that spreads calls with each replica
// count, one that does not (direct) with one.
std::vector<std::pair<std::string, int>> path_choices(const Block& b, const CellConfig& c) {
  std::vector<std::pair<std::string, int>> out;
  for (const std::string& name : b.paths) {
    if (name.empty()) {
      out.push_back({"", 1});
      continue;
    }
    auto only = b.path_transports.find(name);
    if (!b.path_transports.empty() &&
        (only == b.path_transports.end() ||
         std::find(only->second.begin(), only->second.end(), c.transport) == only->second.end()))
      continue;
    for (int r : replica_counts(*find_path(name), row_of(c.transport), b.replicas)) out.push_back({name, r});
  }
  return out;
}

// The block's at-most-once choices for `c`: a shared table only on a path
// (its Redis lives in the path's middle host) and for a row rpclab ships
// (an adapter's server takes no --at-most-once-shared).
std::vector<AtMostOnceChoice> at_most_once_choices(const Block& b, const CellConfig& c) {
  std::vector<AtMostOnceChoice> out;
  for (AtMostOnceChoice a : b.at_most_once)
    if (a != AtMostOnceChoice::kShared || (!c.path.empty() && !row_of(c.transport).adapter)) out.push_back(a);
  return out;
}

std::vector<CellConfig> expand_block(const Block& b) {
  CellConfig c;
  c.experiment = "dependability";
  c.block = b.name;
  c.topology = b.topology;
  c.faults_backend = b.faults_backend;
  c.timeout_ms = b.timeout_ms;
  c.pin = b.pin;
  c.duration_ms = b.duration_ms;
  c.trials = b.trials;
  std::vector<CellConfig> cells = {c};
  auto all = [](const auto& axis) { return [&axis](const CellConfig&) { return axis; }; };
  fan_out(cells, all(b.transports), [](CellConfig& c, const std::string& t) { c.transport = t; });
  fan_out(cells, all(b.faults), [](CellConfig& c, const FaultSpec& f) { c.faults = f; });
  fan_out(cells, all(b.hogs), [](CellConfig& c, int h) { c.hogs = h; });
  // A setting's axis fans out only on a row that takes it (the retransmit
  // interval, the reply cache, draining: sunrpc-udp's today), in the order
  // of the settings table.
  for (const TransportSetting* s : all_settings())
    fan_out(cells, [&b, s](const CellConfig& c) { return b.settings.axis_for(row_of(c.transport), *s); },
            [s](CellConfig& c, SettingValue v) { c.settings.set(*s, v); });
  fan_out(cells, [&b](const CellConfig& c) { return retries_for(c.transport, b.retries); },
          [](CellConfig& c, const RetryChoice& r) { c.retry = r; });
  fan_out(cells, [&b](const CellConfig& c) { return path_choices(b, c); },
          [](CellConfig& c, const std::pair<std::string, int>& p) {
            c.path = p.first;
            c.replicas = p.second;
          });
  fan_out(cells, [&b](const CellConfig& c) { return at_most_once_choices(b, c); },
          [](CellConfig& c, AtMostOnceChoice a) {
            c.at_most_once = a != AtMostOnceChoice::kOff;
            c.at_most_once_shared = a == AtMostOnceChoice::kShared;
          });
  fan_out(cells, all(b.clients), [&b](CellConfig& c, int clients) {
    c.clients = clients;
    c.calls_per_client = std::max<uint64_t>(1, calls_for(b, c) / static_cast<uint64_t>(clients));
  });
  fan_out(cells, all(b.connects), [](CellConfig& c, ConnectMode m) { c.connect = m; });
  return cells;
}

}  // namespace

std::vector<CellConfig> expand_dependability(const std::vector<Block>& blocks) {
  std::vector<CellConfig> cells;
  for (const Block& b : blocks) {
    std::vector<CellConfig> block = expand_block(b);
    cells.insert(cells.end(), block.begin(), block.end());
  }
  return cells;
}

}  // namespace rpclab::harness
