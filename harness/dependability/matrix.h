// Experiment matrices: a preset is a list of blocks, each a small cross
// product of axes; flags override an axis in every block it applies to.
// Expansion skips combinations that mean nothing: a transport setting (a
// retry interval, a reply cache) varies only on the rows that take it.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include "transport/transport.h"
#include "harness/record/cell_config.h"
#include "harness/run/setting_axes.h"
#include "netem/spec/fault_spec.h"
#include "netem/topology/topology.h"

namespace rpclab::harness {

// The server's at-most-once table for a cell: none, each server's own (a
// replica's table sees only its own calls), or one every replica shares
// (a Redis the trial starts: rpclab-server --at-most-once-shared).
enum class AtMostOnceChoice { kOff, kPerServer, kShared };
std::optional<AtMostOnceChoice> parse_at_most_once(const std::string& text);  // off | on | shared

struct Block {
  std::string name;
  std::vector<std::string> transports;
  bool about_these_transports = false;  // the table tests their own options: --transports only picks among them
  std::vector<int> hogs = {0};
  std::vector<netem::FaultSpec> faults = {netem::FaultSpec{}};
  SettingAxes settings;                        // transport settings, on the rows that take them
  std::vector<int> clients = {1};
  std::vector<ConnectMode> connects = {ConnectMode::kPersistent};
  uint64_t calls = 100000;                     // per trial, split over its clients
  std::map<std::string, double> call_share;    // transport -> share of `calls` it makes (a preset's budget)
  double cascade_share = 1.0;  // and of that, a cell's share under load with a retransmit interval set
  int trials = 1;                              // independent trials of each cell
  std::optional<int> timeout_ms;
  netem::TopologyKind topology = netem::TopologyKind::kLoopback;
  std::string faults_backend = "auto";
  bool pin = true;
  std::vector<RetryChoice> retries = {RetryChoice{}};  // each transport takes those its row allows
  std::vector<AtMostOnceChoice> at_most_once = {AtMostOnceChoice::kOff};
  // The paths the calls take (harness/paths/path_table.h; "" straight to
  // one server, outside any path topology) and how many replicas a path
  // with a proxy or a balancing client spreads them over. A path that
  // cannot carry a transport (path_refusal) is left out of its cells.
  std::vector<std::string> paths = {""};
  std::vector<int> replicas = {1};
  // When not empty: each path of `paths` runs only these transports (a
  // table that asks one question of one path per transport).
  std::map<std::string, std::vector<std::string>> path_transports;
  std::optional<int64_t> duration_ms;  // set for cells with timed events (kEventCellMs unless given)
};

// How long a cell with timed events runs when nothing says: long enough
// for a few occurrences of the shipped profiles' events.
inline constexpr int64_t kEventCellMs = 10000;

// Overrides from the command line; an unset field leaves the preset's axis.
struct AxisOverrides {
  std::optional<std::vector<std::string>> blocks;  // keep only these tables of the preset
  std::optional<std::vector<std::string>> transports;
  std::optional<std::vector<int>> hogs;
  std::optional<std::vector<double>> loss_pct, dup_pct;
  std::optional<std::string> profile;
  SettingAxes settings;                        // the axes given replace the preset's
  std::optional<std::vector<int>> clients;
  std::optional<std::vector<ConnectMode>> connects;
  std::optional<uint64_t> calls;        // per trial, blocks without faults
  std::optional<uint64_t> fault_calls;  // per trial, blocks with faults
  std::optional<int> trials;
  std::optional<int> timeout_ms;
  std::optional<netem::TopologyKind> topology;
  std::optional<std::string> faults_backend;
  std::optional<std::string> direction;
  bool no_pin = false;
  std::optional<std::vector<RetryChoice>> retries;
  std::optional<std::vector<AtMostOnceChoice>> at_most_once;
  std::optional<std::vector<std::string>> paths;
  std::optional<std::vector<int>> replicas;
  std::optional<int64_t> duration_ms;
};

std::vector<std::string> dependability_presets();  // names, for --help and errors
// Each preset with what it asks (--preset's help, rpclab presets).
std::vector<std::pair<std::string, std::string>> dependability_preset_summaries();
// --preset's and --tables's help, from the presets' rows: each preset with
// what it asks, and each preset's tables.
std::string dependability_presets_help();
std::string dependability_tables_help();
// Throws std::invalid_argument for an unknown preset name.
std::vector<Block> dependability_preset(const std::string& name);
// Throws netem::SpecError / std::invalid_argument for impossible overrides:
// a table name the preset lacks, fewer calls than clients, faults that the
// named --faults-backend can never apply, --transports that leave no table.
// Returns one line per table --transports left out, for the run to say so.
std::vector<std::string> apply_overrides(std::vector<Block>& blocks, const AxisOverrides& o);
std::vector<CellConfig> expand_dependability(const std::vector<Block>& blocks);
// One line per table whose calls do not divide by its clients (each client
// makes calls / clients, rounded down), for the run to say so.
std::vector<std::string> uneven_splits(const std::vector<Block>& blocks);
// One line per table and transport that a retry policy of the axis does
// not apply to (its row says why), whose cells run without it.
std::vector<std::string> retry_policies_left_out(const std::vector<Block>& blocks);
// One line per table, path and transport the path cannot carry (its
// reason), whose cells are not planned.
std::vector<std::string> paths_left_out(const std::vector<Block>& blocks);

// The loss x duplication grid as fault specs (direction both unless given).
std::vector<netem::FaultSpec> fault_grid(const std::vector<double>& loss_pct, const std::vector<double>& dup_pct,
                                         netem::Direction direction);

}  // namespace rpclab::harness
