#include "harness/run/trial_schedule.h"

#include <algorithm>
#include <random>

#include "harness/kit/random_index.h"

namespace rpclab::harness {
namespace {

uint32_t trials_of(const CellConfig& cell) { return static_cast<uint32_t>(std::max(1, cell.trials)); }

}  // namespace

std::vector<TrialSlot> shuffled_trials(const std::vector<CellConfig>& cells, uint64_t seed) {
  std::vector<size_t> order;
  for (size_t i = 0; i < cells.size(); ++i) order.insert(order.end(), trials_of(cells[i]), i);
  std::mt19937_64 rng(seed);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random_index(rng, i)]);  // Fisher-Yates
  std::vector<uint32_t> next(cells.size(), 1);
  std::vector<TrialSlot> slots;
  for (size_t cell : order) slots.push_back({cell, next[cell]++});
  return slots;
}

std::vector<TrialSlot> trial_rounds(const std::vector<CellConfig>& cells, const GroupKey& group) {
  std::vector<TrialSlot> slots;
  for (size_t first = 0; first < cells.size();) {
    size_t end = first + 1;
    while (end < cells.size() && group(cells[end]) == group(cells[first])) ++end;
    uint32_t rounds = 0;
    for (size_t i = first; i < end; ++i) rounds = std::max(rounds, trials_of(cells[i]));
    for (uint32_t t = 1; t <= rounds; ++t)
      for (size_t i = first; i < end; ++i)
        if (t <= trials_of(cells[i])) slots.push_back({i, t});
    first = end;
  }
  return slots;
}

uint64_t fresh_seed() {
  std::random_device random;
  return random();  // 32 bits: plenty for an order, and short to type back in
}

}  // namespace rpclab::harness
