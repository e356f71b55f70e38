// The price of the path (rpclab speed --preset paths, issue 38): each
// transport's calls through each path (a proxy, gRPC's balancing) beside
// direct, measured in the same rounds: the p50 and p99 each adds, and the
// CPU a call costs the client, the replicas and the proxy; and what the
// at-most-once table every replica shares (Redis) costs a call beside
// each replica's own.
#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_record.h"

namespace rpclab::harness {

// "" when the records hold no path cell.
std::string paths_cost_table(const std::vector<CellRecord>& records, bool markdown = false);

}  // namespace rpclab::harness
