// The latency distribution of speed cells, from each record's
// `latency_histogram`: a CDF and a histogram per payload size, one line per
// transport (loopback, persistent, one client: the cells of Levy's table).
#pragma once

#include <string>
#include <vector>

#include "harness/kit/plot.h"
#include "harness/record/cell_record.h"

namespace rpclab::harness {

// The plot specs, one CDF and one histogram per size (not drawn).
std::vector<PlotSpec> latency_distribution_specs(const std::vector<CellRecord>& records);

}  // namespace rpclab::harness
