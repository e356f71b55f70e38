// The order a run's trials go in. A cell is a setting; a trial is one
// independent run of it. Slow drifts of a shared machine (heat, other jobs)
// must fall on every cell alike, so trials are never run cell after cell:
//
// - shuffled: every trial of every cell in one random order drawn from a
//   seed the run records (dependability), so a drift spreads over all cells;
// - in rounds: the cells of one comparison group take turns, trial 1 of
//   each, then trial 2 of each, ... (speed: floor, A, B, floor, A, B, ...),
//   so a drift touches a transport and the floor it is compared with alike.
//
// Trials are numbered 1..N within their cell in the order they run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/record/cell_config.h"

namespace rpclab::harness {

struct TrialSlot {
  size_t cell = 0;     // index into the matrix
  uint32_t trial = 1;  // from 1, in the order the cell's trials run
  bool operator==(const TrialSlot& o) const { return cell == o.cell && trial == o.trial; }
};

// Every cell contributes max(1, cell.trials) slots. The same cells and seed
// always give the same order, on any machine.
std::vector<TrialSlot> shuffled_trials(const std::vector<CellConfig>& cells, uint64_t seed);

// Consecutive cells with the same group key take turns; a cell with fewer
// trials than its group drops out of the later rounds.
using GroupKey = std::function<std::string(const CellConfig&)>;
std::vector<TrialSlot> trial_rounds(const std::vector<CellConfig>& cells, const GroupKey& group);

// A seed for a run that was given none (from std::random_device).
uint64_t fresh_seed();

}  // namespace rpclab::harness
