// The speed experiment's matrix: Levy's axes (size, parallel clients, same
// vs other machine, a connection per call) plus persistent connections,
// larger sizes, the raw floor and sockperf calibration.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "transport/transport.h"
#include "harness/record/cell_config.h"
#include "harness/run/setting_axes.h"
#include "netem/topology/topology.h"

namespace rpclab::harness {

struct SpeedAxes {
  std::vector<std::string> ops = {"echo"};  // the workload's operations (client_run.h names)
  std::vector<std::string> transports;
  std::vector<size_t> sizes;
  std::vector<int> clients;
  std::vector<netem::TopologyKind> topologies;
  std::vector<ConnectMode> connects;
  int trials = 10;
  uint64_t calls_per_trial = 100;
  uint64_t warmup = 20;
  int timeout_ms = 10000;     // a lost datagram on the floor (no retransmit) costs this
  SettingAxes settings;       // transport settings (TCP_NODELAY off,on; a UDP buffer), on the rows that take them
  std::vector<bool> at_most_once = {false};  // the server's at-most-once table (with its journal) off/on
  // Each client makes at most this many payload bytes of calls per trial,
  // and at least kMinCallsPerTrial; 0 = no cap.
  size_t bytes_per_trial = 0;
  // Each client's unrecorded warm-up calls make at most this many payload
  // bytes, and at least kMinWarmupCalls; 0 = no cap (the warm-up as given).
  size_t warmup_bytes = 0;
  bool calibrate = true;      // sockperf ping-pong at the same sizes, when installed
  // Open loop: each client's calls a second (rpclab-client --rate), one
  // cell per rate; 0 is a closed-loop cell. Empty: closed loop only.
  std::vector<double> rates;
  // When set, a cell at a rate makes what fills this long a trial (at
  // least kMinRateCallsPerTrial) rather than calls_per_trial.
  double seconds_per_trial = 0;
  // Paths (harness/paths/, docs/paths.md): each cell runs through each
  // path that can carry its transport (path_refusal), a path that spreads
  // calls (a proxy, gRPC's balancing) before each count of `replicas`,
  // direct before one; the topologies then do not apply. Empty: no path.
  std::vector<std::string> paths;
  std::vector<int> replicas = {2};
  // On a path that spreads calls, an at-most-once cell also runs with the
  // one table every replica shares (Redis: --at-most-once-shared).
  bool at_most_once_shared = false;
};

// Calibration pseudo-transports: a tool that is not rpclab, measured in
// the same run as the row it calibrates (the row's traits.calibration):
// sockperf ping-pong for the raw floors, ghz (a gRPC load generator)
// against rpclab's own gRPC server for the grpc row.
inline constexpr const char* kSockperfUdp = "sockperf-udp";
inline constexpr const char* kSockperfTcp = "sockperf-tcp";
inline constexpr const char* kGhz = "ghz";
bool is_calibration(const std::string& transport);
// The row a calibration tool that calls it is measured against: the first
// of the table whose traits name `tool` (ghz -> grpc); "" for sockperf,
// which calls no row.
std::string calibrated_row(const std::string& tool);
inline constexpr uint64_t kMinCallsPerTrial = 10;
inline constexpr uint64_t kMinRateCallsPerTrial = 100;  // a p99 needs 100 calls
inline constexpr uint64_t kMinWarmupCalls = 2;          // the first call of a connection and one after it

// The comparison group a cell's trials take turns in: (topology,
// connection, clients, operation, size); a calibration cell is a group of
// its own.
std::string speed_group(const CellConfig& cell);

SpeedAxes speed_preset(const std::string& name);  // throws std::invalid_argument
// The presets speed_preset() knows, one row each: what it measures (--help)
// and apply(), which sets its axes over every transport's defaults.
struct SpeedPresetRow {
  const char* name;
  const char* summary;
  void (*apply)(SpeedAxes& axes);
};
const std::vector<SpeedPresetRow>& speed_presets();
std::vector<std::string> speed_preset_names();
std::string speed_presets_help();

// A workload: what each call is, one row each. `echo` is Levy's (opaque
// bytes of --sizes); `allman` is Allman's four operations (seed 000) with
// --sizes as N doubles; `kiraly` is Kiraly's record (seed 003) with --sizes
// as its photo's bytes. apply() sets its ops and its own defaults on axes
// from a preset; flags given on the command line are applied after it.
struct SpeedWorkload {
  const char* name;
  const char* summary;
  void (*apply)(SpeedAxes& axes);
};
const std::vector<SpeedWorkload>& speed_workloads();
const SpeedWorkload* find_speed_workload(const std::string& name);
std::string speed_workload_names();  // "echo, allman, kiraly, at-most-once"
// The workload whose row runs `op` ("echo", "allman", "kiraly"), or "".
std::string workload_of(const std::string& op);
// An operation that carries no vector (IsPrime) runs at one size only.
bool sized_op(const std::string& op);
// Cells ordered so each topology's calibration runs first and the cells
// of one group are adjacent, the floor first (their trials take turns:
// trial_rounds with speed_group).
std::vector<CellConfig> expand_speed(const SpeedAxes& axes);
// The (path, replicas) pairs a transport's cells take: {"", 1} without
// paths; those path_refusal refuses are left out.
std::vector<std::pair<std::string, int>> speed_path_choices(const SpeedAxes& axes, const TransportRow& row);

}  // namespace rpclab::harness
