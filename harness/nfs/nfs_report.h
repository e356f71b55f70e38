// The NFS experiment's tables (experiment.h's ReportTable rows):
//   nfs          servers x version/transport x reply cache by fault: the
//                MKDIRs (or the --ops' last call) told "exists"/"no such"
//                for their own effect, over trials;
//   nfs-classes  every cell's calls by class, the fault measured on the
//                link, and how the server ended;
//   nfs-speed    the speed view's cells (preset nfs-speed, nfs_speed.h):
//                p50, p99 and ops/s of each op per server, client, version
//                and transport, over trials.
#pragma once

#include <vector>

#include "harness/run/experiment.h"

namespace rpclab::harness {

std::vector<ReportTable> nfs_tables();
// report.html's "Every cell" columns: every class of the judged calls,
// the server's reply-cache hits, how the server ended.
CellFigures nfs_cell_figures();

}  // namespace rpclab::harness
