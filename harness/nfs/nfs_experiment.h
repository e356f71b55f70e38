// The NFS experiment (`rpclab nfs`, `make run-dependability PRESET=nfs`):
// a row of the experiments table with its own planner (servers x NFS
// version and transport x reply cache x faults), its trial (one NFS cell,
// nfs_cell.h; inside a user-mode-linux guest for a server whose kernel
// module this kernel lacks), its cell summary (the classes over trials)
// and its tables (nfs_report.h).
#pragma once

#include <string>
#include <vector>

#include "harness/run/experiment.h"

namespace rpclab::harness {

Experiment nfs_experiment();

// Its presets, each with what it asks: --preset and its help, rpclab presets.
const std::vector<PresetRow>& nfs_preset_rows();

}  // namespace rpclab::harness
