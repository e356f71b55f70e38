#include "harness/speed/speed_rows.h"

#include <fmt/format.h>

#include <algorithm>

#include "transport/transport.h"
#include "transport/settings_table.h"
#include "harness/speed/speed_matrix.h"

namespace rpclab::harness {

// The table's order; a transport this build does not know (an older
// record) goes last.
long table_rank(const std::string& transport) {
  const auto& table = transports();
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].name == transport) return static_cast<long>(i);
  return static_cast<long>(table.size());
}

// A row of the tables: the transport, the words of each setting the cell
// set (" nodelay" with --tcp-nodelay on), " +at-most-once" when its server
// kept the at-most-once table (--workload at-most-once).
std::string variant(const CellRecord& r) {
  const CellConfig& cell = r.cell.config;
  return r.transport + row_words(cell.settings) + (cell.at_most_once ? " +at-most-once" : "");
}

std::string size_label(size_t bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

std::string size_words(size_t bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

bool echo_run(const CellRecord& record) {
  return record.is("speed") && workload_of(record.cell.config.op) == "echo" && !record.cell.config.rate_per_s;
}

bool below_floor(const CellRecord& record) {
  const MaybeNull<double>& ratio = record.speed.ratio_to_floor;
  return ratio.has_value() && *ratio < 1;
}

bool few_beyond(const std::optional<uint64_t>& calls, double q) {
  return calls && static_cast<double>(*calls) * (1 - q) < static_cast<double>(kLeastBeyond) - 1e-9;
}

std::string marked(const std::string& figure, bool noisy) { return noisy && figure != "-" ? figure + kNoiseMark : figure; }

std::vector<std::string> noisy_percentiles(const CellRecord& record) {
  const LatencyFigures& l = record.speed.latency;
  if (!record.is("speed") || !l.p50_us) return {};
  const std::optional<uint64_t>& n = l.calls_measured;
  std::vector<std::string> noisy;
  if (below_floor(record) || few_beyond(n, 0.5)) noisy.push_back("p50");
  if (l.p90_us && few_beyond(n, 0.9)) noisy.push_back("p90");
  if (l.p99_us && few_beyond(n, 0.99)) noisy.push_back("p99");
  if (l.p999_us && few_beyond(n, 0.999)) noisy.push_back("p99.9");
  return noisy;
}

bool noisy_at(const CellRecord& record, const std::string& percentile) {
  std::vector<std::string> noisy = noisy_percentiles(record);
  return std::find(noisy.begin(), noisy.end(), percentile) != noisy.end();
}

std::string series_title(const std::string& row, const std::vector<size_t>& noisy_sizes) {
  if (noisy_sizes.empty()) return row;
  std::vector<std::string> words;
  for (size_t bytes : noisy_sizes) words.push_back(size_words(bytes));
  return fmt::format("{} ({} noise at {})", row, kNoiseMark, fmt::join(words, ", "));
}

std::string noise_note() {
  return fmt::format("({} = noise, not a finding: a p50 below its raw floor's p50 in this run, or a percentile with "
                     "fewer than {} of the cell's calls beyond it)",
                     kNoiseMark, kLeastBeyond);
}

}  // namespace rpclab::harness
