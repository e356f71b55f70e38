// What every speed table says of a record the same way: its row (the
// transport and its variant), the rows' order, the size's label, and
// which workload it measured. The tables themselves are in speed_report,
// allman_report, at_most_once_report and latency_plots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// Noise, marked in every view of a speed cell (issue 39): a p50 below its
// floor's in the same run (no RPC is faster than the raw socket it runs
// on: the difference is the machine's noise), or a percentile that rests
// on fewer than kLeastBeyond calls beyond it (p99 from 300 calls is the
// 3rd slowest call).
inline constexpr uint64_t kLeastBeyond = 10;
inline constexpr const char* kNoiseMark = "~";
bool below_floor(const CellRecord& record);
bool few_beyond(const std::optional<uint64_t>& calls, double q);
// The figure with the mark when `noisy`, e.g. "41.2~".
std::string marked(const std::string& figure, bool noisy);
// The mark's one explanation, under a table that shows it.
std::string noise_note();
// The percentiles of `record` that are noise, by these rules, in order:
// "p50", "p90", "p99", "p99.9"; none for a record without latencies.
std::vector<std::string> noisy_percentiles(const CellRecord& record);
// Whether `percentile` ("p50", ...) is among them: what every view asks.
bool noisy_at(const CellRecord& record, const std::string& percentile);
// What a series of a plot is called when some of its points are noise:
// "sunrpc-udp (~ noise at 12 B, 8 KiB)", or just the row's name.
std::string series_title(const std::string& row, const std::vector<size_t>& noisy_sizes);

}  // namespace rpclab::harness
