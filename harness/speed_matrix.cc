#include "harness/speed_matrix.h"

#include <fmt/format.h>

#include <stdexcept>

namespace rpclab::harness {
namespace {

using netem::TopologyKind;

const std::vector<std::string> kOrder = {"raw-udp", "raw-tcp", "sunrpc-udp", "sunrpc-tcp", "grpc"};

size_t rank(const std::string& transport) {
  for (size_t i = 0; i < kOrder.size(); ++i)
    if (kOrder[i] == transport) return i;
  return kOrder.size();
}

CellConfig speed_cell(const SpeedAxes& a, const std::string& transport, TopologyKind topology, ConnectMode connect,
                      int clients, size_t size) {
  CellConfig c;
  c.experiment = "speed";
  c.transport = transport;
  c.topology = topology;
  c.connect = connect;
  c.clients = clients;
  c.size = size;
  c.trials = is_calibration(transport) ? 1 : a.trials;  // sockperf measures once, for a second
  c.calls_per_client = a.calls_per_trial;
  c.warmup = a.warmup;
  c.timeout_ms = a.timeout_ms;
  c.udp_bufsize = transport == "sunrpc-udp" ? a.udp_bufsize : 0;
  c.pin = false;  // two CPUs, up to four clients and a server: let the scheduler place them
  return c;
}

}  // namespace

bool is_calibration(const std::string& transport) { return transport == kSockperfUdp || transport == kSockperfTcp; }

std::string floor_for(const std::string& transport) { return transport == "sunrpc-udp" ? "raw-udp" : "raw-tcp"; }

std::string speed_group(const CellConfig& cell) {
  if (is_calibration(cell.transport)) return cell.transport + "/" + std::to_string(cell.size);  // alone
  return fmt::format("{}/{}/{}/{}", netem::topology_name(cell.topology), connect_mode_name(cell.connect), cell.clients,
                     cell.size);
}

SpeedAxes speed_preset(const std::string& name) {
  SpeedAxes a;
  a.transports = kOrder;
  a.connects = {ConnectMode::kPerCall, ConnectMode::kPersistent};
  a.topologies = {TopologyKind::kLoopback, TopologyKind::kTwoHost};
  if (name == "levy1989") {
    a.sizes = {12, 512, 8192, 16384, 65536, 1 << 20};
    a.clients = {1, 2, 4};
  } else if (name == "quick") {
    a.sizes = {12, 8192};
    a.clients = {1, 2};
    a.trials = 3;
    a.calls_per_trial = 50;
    a.warmup = 10;
  } else {
    throw std::invalid_argument("unknown speed preset '" + name + "' (known: levy1989, quick)");
  }
  return a;
}

std::vector<CellConfig> expand_speed(const SpeedAxes& a) {
  std::vector<std::string> transports = a.transports;
  std::stable_sort(transports.begin(), transports.end(),
                   [](const std::string& x, const std::string& y) { return rank(x) < rank(y); });
  std::vector<CellConfig> cells;
  for (TopologyKind topology : a.topologies) {
    if (a.calibrate)
      for (const char* tool : {kSockperfUdp, kSockperfTcp})
        for (size_t size : a.sizes) cells.push_back(speed_cell(a, tool, topology, ConnectMode::kPersistent, 1, size));
    // Every transport of one (connection, clients, size) in a row, the
    // floor first: their trials then take turns (speed_group), so a ratio
    // to the floor compares figures taken in the same rounds, and the VM's
    // slow drifts touch both alike.
    for (ConnectMode connect : a.connects)
      for (int clients : a.clients)
        for (size_t size : a.sizes)
          for (const std::string& transport : transports)
            cells.push_back(speed_cell(a, transport, topology, connect, clients, size));
  }
  return cells;
}

}  // namespace rpclab::harness
