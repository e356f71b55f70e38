// What every speed table says of a record the same way: its row (the
// transport and its variant), the rows' order, the size's label, and
// which workload it measured. The tables themselves are in speed_report,
// allman_report, at_most_once_report and latency_plots.
#pragma once

#include <cstddef>
#include <string>

#include "harness/record/cell_record.h"

namespace rpclab::harness {

std::string size_label(size_t bytes);  // 12, 512, 8K, 16K, 64K, 1M: keys and file names
std::string size_words(size_t bytes);  // 12 B, 512 B, 8 KiB, 1 MiB, 1500 B: for a reader
// A transport's place in the table's order (an unknown one last), and a
// record's row name: the transport, and " nodelay" when the cell set it.
long table_rank(const std::string& transport);
std::string variant(const CellRecord& record);

// A speed record of ECHO in a closed loop, Levy's workload (what Levy's
// tables and the latency plots show; NEXT of the at-most-once workload
// and the open-loop cells, rate_report.h, have their own).
bool echo_run(const CellRecord& record);

}  // namespace rpclab::harness
