#include "harness/dependability/levy_surface.h"

namespace rpclab::harness {

const std::vector<int64_t>& levy_surface_intervals_ms() {
  static const std::vector<int64_t> ms = {20, 50, 130, 340, 880, 2300, 5800, 15000};
  return ms;
}

const std::vector<int64_t>& levy_surface_cache_intervals_ms() {
  static const std::vector<int64_t> ms = {20, 50, 130};
  return ms;
}

SurfacePlan plan_of(const std::vector<CellConfig>& cells) {
  SurfacePlan p;
  for (const CellConfig& c : cells) {
    p.cells++;
    p.trials += static_cast<uint64_t>(c.trials);
    double per_trial = kSurfaceTrialFixedS +
                       static_cast<double>(c.total_calls()) * kSurfaceCallS * static_cast<double>(c.hogs + 1);
    p.estimated_s += per_trial * c.trials;
  }
  return p;
}

}  // namespace rpclab::harness
