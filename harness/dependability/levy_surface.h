// The levy-surface preset's axes (issue 26): sunrpc-udp's retransmit
// interval on a log scale, and where the reply cache joins it; and the
// plan of a matrix (cells, trials, an estimate of the run's time) for the
// preset's tests and docs. Its tables are in matrix.cc (levy_surface()).
#pragma once

#include <cstdint>
#include <vector>

#include "harness/record/cell_config.h"

namespace rpclab::harness {

// The preset's retransmit intervals, ms: 20 ms to 15 s, each about 2.6
// times the one before (750^(1/7)), rounded.
const std::vector<int64_t>& levy_surface_intervals_ms();
// Those with the reply cache too: where the levy1989 run saw duplicates
// (20 ms under load) and the next two, which a server waiting 15 ms a
// timeslice can still outlast.
const std::vector<int64_t>& levy_surface_cache_intervals_ms();

// A rough figure of how long the cells take, from a cost per trial (the
// link, the server, the hogs, teardown) and per call at the cell's load
// (the server gets 1 / (hogs + 1) of its CPU): what the docs' arithmetic
// uses, not a measurement.
struct SurfacePlan {
  size_t cells = 0;
  uint64_t trials = 0;
  double estimated_s = 0;
};
inline constexpr double kSurfaceTrialFixedS = 0.5;
inline constexpr double kSurfaceCallS = 50e-6;  // a call's server time alone on its CPU
SurfacePlan plan_of(const std::vector<CellConfig>& cells);

}  // namespace rpclab::harness
