// The speed experiment's matrix: Levy's axes (size, parallel clients, same
// vs other machine, a connection per call) plus persistent connections,
// larger sizes, the raw floor and sockperf calibration.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/transport.h"
#include "harness/cell_config.h"
#include "netem/topology.h"

namespace rpclab::harness {

struct SpeedAxes {
  std::vector<std::string> transports;
  std::vector<size_t> sizes;
  std::vector<int> clients;
  std::vector<netem::TopologyKind> topologies;
  std::vector<ConnectMode> connects;
  int trials = 10;
  uint64_t calls_per_trial = 100;
  uint64_t warmup = 20;
  int timeout_ms = 10000;     // a lost datagram on the floor (no retransmit) costs this
  size_t udp_bufsize = 0;
  bool calibrate = true;      // sockperf ping-pong at the same sizes, when installed
};

// Calibration pseudo-transports: sockperf itself, not an rpclab transport.
inline constexpr const char* kSockperfUdp = "sockperf-udp";
inline constexpr const char* kSockperfTcp = "sockperf-tcp";
bool is_calibration(const std::string& transport);
// The floor a transport is compared with: raw-udp for sunrpc-udp, raw-tcp else.
std::string floor_for(const std::string& transport);

// The comparison group a cell's trials take turns in: (topology,
// connection, clients, size); a calibration cell is a group of its own.
std::string speed_group(const CellConfig& cell);

SpeedAxes speed_preset(const std::string& name);  // throws std::invalid_argument
// Cells ordered so each topology's calibration runs first and the cells
// of one group are adjacent, the floor first (their trials take turns:
// trial_rounds with speed_group).
std::vector<CellConfig> expand_speed(const SpeedAxes& axes);

}  // namespace rpclab::harness
