#include "harness/speed/speed_matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "harness/paths/path_table.h"
#include "ops/kiraly.h"
#include "ops/operation.h"
#include "transport/adapter_table.h"

namespace rpclab::harness {
namespace {

using netem::TopologyKind;

// Floors first, so their figures are known when the RPC transports' ratios
// are written; then the table's order.
std::pair<bool, size_t> rank(const std::string& transport) {
  const auto& table = transports();
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].name == transport) return {!table[i].floor(), i};
  return {true, table.size()};
}

const TransportRow& row_of(const std::string& transport) {
  const TransportRow* row = find_transport(transport);
  if (!row) throw std::invalid_argument("unknown transport '" + transport + "' (known: " + transport_names() + ")");
  return *row;
}

Operation op_of(const std::string& name) {
  auto op = parse_operation(name);
  if (!op) throw std::invalid_argument("unknown operation '" + name + "' (known: " + operation_names() + ")");
  return *op;
}

uint64_t calls_per_trial(const SpeedAxes& a, const std::string& transport, const std::string& op, size_t size) {
  size_t bytes = is_calibration(transport) ? size : payload_bytes(op_of(op), size);
  if (is_calibration(transport) || !a.bytes_per_trial || !bytes) return a.calls_per_trial;
  return std::min(a.calls_per_trial, std::max<uint64_t>(kMinCallsPerTrial, a.bytes_per_trial / bytes));
}

uint64_t warmup_per_trial(const SpeedAxes& a, const std::string& transport, const std::string& op, size_t size) {
  size_t bytes = is_calibration(transport) ? 0 : payload_bytes(op_of(op), size);
  if (!a.warmup_bytes || !bytes) return a.warmup;
  return std::min(a.warmup, std::max<uint64_t>(kMinWarmupCalls, a.warmup_bytes / bytes));
}

CellConfig speed_cell(const SpeedAxes& a, const std::string& transport, const std::string& op, TopologyKind topology,
                      ConnectMode connect, int clients, size_t size, const TransportSettings& settings = {},
                      bool at_most_once = false, double rate = 0) {
  CellConfig c;
  c.experiment = "speed";
  c.op = op;
  c.transport = transport;
  c.topology = topology;
  c.connect = connect;
  c.clients = clients;
  c.size = size;
  c.trials = is_calibration(transport) ? 1 : a.trials;  // sockperf measures once, for a second
  c.calls_per_client = calls_per_trial(a, transport, op, size);
  c.warmup = warmup_per_trial(a, transport, op, size);
  // ghz makes the calls the row it calibrates makes in all its trials, in
  // one run of its own (sockperf runs for a second, whatever the calls).
  if (transport == kGhz) {
    std::string row = calibrated_row(transport);
    c.calls_per_client = calls_per_trial(a, row, op, size) * static_cast<uint64_t>(a.trials);
    c.warmup = warmup_per_trial(a, row, op, size);
  }
  c.timeout_ms = a.timeout_ms;
  c.settings = settings;
  c.at_most_once = at_most_once;
  c.pin = false;  // two CPUs, up to four clients and a server: let the scheduler place them
  if (rate > 0) {
    c.rate_per_s = rate;
    if (a.seconds_per_trial > 0)
      c.calls_per_client = std::max<uint64_t>(kMinRateCallsPerTrial,
                                              static_cast<uint64_t>(std::llround(rate * a.seconds_per_trial)));
  }
  return c;
}

}  // namespace

bool is_calibration(const std::string& transport) {
  return transport == kSockperfUdp || transport == kSockperfTcp || transport == kGhz;
}

std::string calibrated_row(const std::string& tool) {
  if (tool != kGhz) return "";
  for (const TransportRow& row : transports())
    if (row.traits.calibration == tool) return std::string(row.name);
  return "";
}

std::string speed_group(const CellConfig& cell) {
  if (is_calibration(cell.transport)) return cell.transport + "/" + std::to_string(cell.size);  // alone
  std::string op = cell.op == "echo" ? "" : "/" + cell.op;  // echo groups keep their names of before
  return fmt::format("{}/{}/{}/{}{}", netem::topology_name(cell.topology), connect_mode_name(cell.connect),
                     cell.clients, cell.size, op);
}

bool sized_op(const std::string& op) { return payload_bytes(op_of(op), 1) > 0; }

namespace {

// Allman's setting: N = 50,000 doubles, and smaller N for the curve; one
// client, a kept connection. A 50,000-double XML-RPC call costs tens of
// milliseconds here, so a trial is 10 calls, 3 trials a cell. The bytes
// on the wire are counted on the two-host link (speed_command picks
// loopback without root, and says so); sockperf has no part in it.
// What the workloads beside Levy's share: one client on a kept connection,
// every call counted whatever its bytes, no sockperf calibration.
void one_client_kept(SpeedAxes& a, TopologyKind topology) {
  a.clients = {1};
  a.connects = {ConnectMode::kPersistent};
  a.topologies = {topology};
  a.bytes_per_trial = 0;
  a.calibrate = false;
}

void apply_allman(SpeedAxes& a) {
  one_client_kept(a, TopologyKind::kTwoHost);
  a.ops = {"is-prime", "average", "get-rand-nums", "log-transform"};
  a.sizes = {50, 500, 5000, 50000};
  a.trials = 3;
  a.calls_per_trial = 10;
  a.warmup = 2;
  a.timeout_ms = 60000;
}

// Kiraly's setting (seed 003): one record without its photo ("small") and
// with the 1 MiB photo ("binary"), --sizes as the photo's bytes; otherwise
// Allman's (one client, kept connection, bytes counted on the two-host link).
void apply_kiraly(SpeedAxes& a) {
  apply_allman(a);
  a.ops = {"get-record"};
  a.sizes = {0, kKiralyPhotoBytes};
}

void apply_echo(SpeedAxes& a) { a.ops = {"echo"}; }

// What the at-most-once layer costs a call (issue 11): NEXT, the call it
// guards, with the server's table and journal off and on, side by side in
// one group so their trials take turns. One client, a kept connection,
// loopback: the cost is CPU and a durable write, not the network.
void apply_at_most_once(SpeedAxes& a) {
  one_client_kept(a, TopologyKind::kLoopback);
  a.ops = {"next"};
  a.at_most_once = {false, true};
  a.trials = 10;
  a.calls_per_trial = 500;
  a.warmup = 50;
}

}  // namespace

const std::vector<SpeedWorkload>& speed_workloads() {
  static const std::vector<SpeedWorkload> table = {
      {"echo", "Levy's: ECHO of --sizes opaque bytes", apply_echo},
      {"allman", "Allman's four operations (IsPrime, Average, GetRandNums, LogTransform) of --sizes doubles",
       apply_allman},
      {"kiraly", "Kiraly's record (GetRecord) without and with its 1 MiB photo; --sizes as the photo's bytes",
       apply_kiraly},
      {"at-most-once", "NEXT with the server's at-most-once table and its journal off, then on", apply_at_most_once},
  };
  return table;
}

std::string workload_of(const std::string& op) {
  for (const SpeedWorkload& w : speed_workloads()) {
    SpeedAxes a;
    w.apply(a);
    if (std::find(a.ops.begin(), a.ops.end(), op) != a.ops.end()) return w.name;
  }
  return "";
}

const SpeedWorkload* find_speed_workload(const std::string& name) {
  for (const SpeedWorkload& w : speed_workloads())
    if (name == w.name) return &w;
  return nullptr;
}

std::string speed_workload_names() {
  std::string names;
  for (const SpeedWorkload& w : speed_workloads()) names += (names.empty() ? "" : ", ") + std::string(w.name);
  return names;
}

namespace {

void apply_levy1989(SpeedAxes& a) {
  a.sizes = {12, 512, 8192, 16384, 65536, 1 << 20};
  a.clients = {1, 2, 4};
  // The run must stay within 15 minutes. With 10 trials of 100 calls it
  // took 20 min 35 s (run 20261126-081352), 60% of it in the 64 KiB
  // and 1 MiB cells: a 1 MiB call costs 1 to 6 ms, and xmlrpc and jsonrpc
  // 25 to 55 ms (base64 and a text parser on each side). Capped at 8 MiB
  // a client, a 1 MiB trial makes 10 calls (the least a trial makes);
  // 64 KiB and below keep 100, in 8 trials rather than 10: 14 min 21 s
  // (run 20261126-090234, nothing else running). With the tonic rows and
  // each cell's clients kept across its trials, 12 min 23 s (run
  // 20261207-064856, quiet), of which the recorded calls are 8 min 20 s;
  // with the start gate waking the harness as a client is ready, 9 min
  // 41 s (run 20261207-153623, quiet; the recorded calls 6 min 24 s).
  a.bytes_per_trial = size_t{8} << 20;
  a.trials = 8;
  // The warm-up likewise: 20 calls of 1 MiB cost more than the trial's
  // 10 (0.5 to 1 s a client for xmlrpc and jsonrpc), 1 MiB cells spent
  // twice their measured time warming up (run speed-gate-1551). Half
  // the trial's bytes leaves 1 MiB cells 4 warm-up calls (4 MiB through
  // a kept connection, past the receive buffer's growth); smaller sizes
  // keep 20.
  a.warmup_bytes = a.bytes_per_trial / 2;
}

// The price of the path (issue 38): NEXT, one client on a kept
// connection, through each path before two replicas (direct: one), with
// the at-most-once table off, each replica's own, and shared (Redis). A
// path's trials take turns with direct's (one group), so each proxy's
// added latency and CPU compare figures taken in the same rounds.
void apply_paths(SpeedAxes& a) {
  a.transports = {"grpc", "jsonrpc", "sunrpc-tcp", "sunrpc-udp"};
  a.connects = {ConnectMode::kPersistent};
  a.topologies = {TopologyKind::kTwoHost};  // where a path's cell is labelled; its hosts are the path's
  a.ops = {"next"};
  a.sizes = {12};
  a.clients = {1};
  a.paths = {"direct", "haproxy", "nginx", "caddy", "grpc-round-robin"};
  a.replicas = {2};
  a.at_most_once = {false, true};
  a.at_most_once_shared = true;
  a.trials = 5;
  a.calls_per_trial = 300;
  a.warmup = 30;
  a.calibrate = false;
}

void apply_quick(SpeedAxes& a) {
  a.sizes = {12, 8192};
  a.clients = {1, 2};
  a.trials = 3;
  a.calls_per_trial = 50;
  a.warmup = 10;
}

// Open loop (issue 27): every built-in transport, floors included, at
// rates on a log scale and closed loop (0) beside them, 12 B, one client
// on a kept connection, loopback. A trial is what fills 0.5 s at its rate
// (at least 100 calls; the closed-loop cell 1,000), 3 trials: a few
// minutes in all (docs/speed.md).
void apply_rate_sweep(SpeedAxes& a) {
  a.transports = {"raw-udp", "raw-tcp", "sunrpc-udp", "sunrpc-tcp", "grpc", "xmlrpc", "jsonrpc"};
  a.connects = {ConnectMode::kPersistent};
  a.topologies = {TopologyKind::kLoopback};
  a.sizes = {12};
  a.clients = {1};
  a.trials = 3;
  a.calls_per_trial = 1000;
  a.warmup = 20;
  a.calibrate = false;
  a.rates = {0, 500, 1000, 2000, 5000, 10000, 20000, 50000};
  a.seconds_per_trial = 0.5;
}

}  // namespace

const std::vector<SpeedPresetRow>& speed_presets() {
  static const std::vector<SpeedPresetRow> rows = {
      {"levy1989",
       "Levy's timing table: 12 B to 1 MiB, 1/2/4 clients, new and kept connections, loopback and two "
       "hosts, every transport (make run-speed; about 10 minutes on 2 cores)",
       apply_levy1989},
      {"quick", "12 B and 8 KiB, 1 and 2 clients, 3 short trials (about a minute)", apply_quick},
      {"paths",
       "the price of the path: NEXT through HAProxy, nginx, Caddy and gRPC's balancing before 2 replicas beside "
       "direct, at-most-once off, per replica and shared (Redis); needs root (a few minutes)",
       apply_paths},
      {"rate-sweep",
       "open loop: every built-in transport at 500 to 50,000 calls/s, latency from when each call was "
       "due, the knee",
       apply_rate_sweep}};
  return rows;
}

SpeedAxes speed_preset(const std::string& name) {
  SpeedAxes a;
  // Every transport but xmlrpc-pstream, whose stock setting (no
  // TCP_NODELAY) makes 10 calls a second: it runs when named, with
  // --tcp-nodelay off,on to show why (docs/running.md).
  // The adapters built when rpclab started follow, beside the floor
  // (docs/adapters.md); speed_experiment.cc notes those left out.
  a.transports = {"raw-udp", "raw-tcp", "sunrpc-udp", "sunrpc-tcp", "grpc", "xmlrpc", "jsonrpc"};
  for (const std::string& t : adapter_row_names()) a.transports.push_back(t);
  a.connects = {ConnectMode::kPerCall, ConnectMode::kPersistent};
  a.topologies = {TopologyKind::kLoopback, TopologyKind::kTwoHost};
  for (const SpeedPresetRow& p : speed_presets())
    if (name == p.name) {
      p.apply(a);
      return a;
    }
  std::string known;
  for (const std::string& n : speed_preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown speed preset '" + name + "' (known: " + known + ")");
}

std::vector<std::string> speed_preset_names() {
  std::vector<std::string> names;
  for (const SpeedPresetRow& p : speed_presets()) names.push_back(p.name);
  return names;
}

std::string speed_presets_help() {
  std::string help;
  for (const SpeedPresetRow& p : speed_presets()) help += (help.empty() ? "" : "; ") + std::string(p.name) + ": " + p.summary;
  return help;
}

std::vector<std::pair<std::string, int>> speed_path_choices(const SpeedAxes& a, const TransportRow& row) {
  if (a.paths.empty()) return {{"", 1}};
  std::vector<std::pair<std::string, int>> out;
  for (const std::string& name : a.paths) {
    const PathRow* path = find_path(name);
    if (!path) throw std::invalid_argument("unknown path '" + name + "' (known: " + path_names() + ")");
    for (int r : replica_counts(*path, row, a.replicas)) out.push_back({name, r});
  }
  return out;
}

std::vector<CellConfig> expand_speed(const SpeedAxes& a) {
  std::vector<std::string> order = a.transports;
  for (const std::string& t : order) row_of(t);  // every name known before any cell
  for (const std::string& op : a.ops) op_of(op);
  std::stable_sort(order.begin(), order.end(),
                   [](const std::string& x, const std::string& y) { return rank(x) < rank(y); });
  std::vector<CellConfig> cells;
  for (TopologyKind topology : a.topologies) {
    if (a.calibrate) {
      for (const char* tool : {kSockperfUdp, kSockperfTcp})
        for (size_t size : a.sizes)
          cells.push_back(speed_cell(a, tool, "echo", topology, ConnectMode::kPersistent, 1, size));
      // ghz calibrates the row it calls, when the run has that row and ECHO.
      bool has_row = std::find(order.begin(), order.end(), calibrated_row(kGhz)) != order.end();
      if (has_row && std::find(a.ops.begin(), a.ops.end(), "echo") != a.ops.end())
        for (size_t size : a.sizes)
          cells.push_back(speed_cell(a, kGhz, "echo", topology, ConnectMode::kPersistent, 1, size));
    }
    // Every transport of one (connection, clients, size) in a row, the
    // floor first: their trials then take turns (speed_group), so a ratio
    // to the floor compares figures taken in the same rounds, and the VM's
    // slow drifts touch both alike.
    for (ConnectMode connect : a.connects)
      for (int clients : a.clients)
        for (const std::string& op : a.ops)
          for (size_t size : sized_op(op) ? a.sizes : std::vector<size_t>{0})
            for (const std::string& transport : order) {
              // A transport whose row does not carry the operation has no cell of it.
              if (!row_of(transport).carries(op_of(op))) continue;
              // Each combination of the settings the row takes (TCP_NODELAY
              // off and on where the axis has both).
              for (const TransportSettings& settings : a.settings.combinations(row_of(transport)))
                for (const auto& [path, replicas] : speed_path_choices(a, row_of(transport)))
                  for (bool at_most_once : a.at_most_once)
                    // shared: one table in a Redis on the path, for a row rpclab ships (an
                    // adapter's server takes no --at-most-once-shared) before several replicas
                    for (bool shared : at_most_once && a.at_most_once_shared && replicas > 1 &&
                                               !row_of(transport).adapter
                                           ? std::vector<bool>{false, true}
                                           : std::vector<bool>{false})
                      for (double rate : a.rates.empty() ? std::vector<double>{0} : a.rates) {
                        CellConfig c = speed_cell(a, transport, op, topology, connect, clients, size, settings,
                                                  at_most_once, rate);
                        c.path = path;
                        c.replicas = replicas;
                        c.at_most_once_shared = shared;
                        cells.push_back(c);
                      }
            }
  }
  return cells;
}

}  // namespace rpclab::harness
