// The open-loop view (rpclab speed --rates, --preset rate-sweep; issue
// 27): per transport, offered rate against achieved calls/s and the
// latency from each call's due time, the knee where it stops keeping up,
// and the closed-loop cell of the same transport beside it; the p99
// against offered rate as a log-log plot.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "harness/kit/plot.h"
#include "harness/record/cell_record.h"

namespace rpclab::harness {

// One open-loop cell of a transport, as the knee reads it.
struct RatePoint {
  double offered_per_s = 0, achieved_per_s = 0, p99_us = 0;
};

// The knee's rule: the highest offered rate whose achieved rate is at
// least 95% of it and whose p99 (from due) is at most 10 times the p99 at
// the lowest offered rate. The index into `points` (any order), or none
// when no rate meets it.
inline constexpr double kKneeAchievedShare = 0.95;
inline constexpr double kKneeP99Factor = 10;
std::optional<size_t> knee_index(const std::vector<RatePoint>& points);

// "" when the records hold no open-loop cell.
std::string rate_sweep_table(const std::vector<CellRecord>& records, bool markdown = false);

// p99 from due against offered rate, log-log, one line per transport;
// none without open-loop cells.
std::vector<PlotSpec> rate_plot_specs(const std::vector<CellRecord>& records);

}  // namespace rpclab::harness
