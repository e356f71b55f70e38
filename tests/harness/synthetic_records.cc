#include "synthetic_records.h"

#include <numeric>

#include "harness/dependability/classify.h"
#include "harness/dependability/dependability_summary.h"
#include "harness/run/result_record.h"
#include "netem/spec/fault_fields.h"

namespace rpclab::harness {

nlohmann::json dependability_record(const CellConfig& cell, uint64_t calls, uint64_t silent_dups) {
  CellRecord r = CellRecord::begin(cell, "test");
  ClassCounts c;
  c.calls = calls;
  c.correct = calls - silent_dups;
  c.duplicate_calls = c.silent_duplicates = c.extra_executions = silent_dups;
  add_classes(r.dependability, c);
  CellLoad load;
  load.hogs = cell.hogs;
  load.run_queue_mean = MaybeNull<double>::of(cell.hogs + 1.0);
  r.dependability.load = load;
  r.dependability.faults = CellFaults{};
  r.dependability.faults->backend = netem::is_empty(cell.faults) ? "none" : "nftables";
  keep_stable_fields(r);  // as the run loop does before it appends a record
  return r;
}

nlohmann::json dependability_record(const std::string& transport, int hogs, uint64_t calls, uint64_t silent_dups) {
  CellConfig cell;
  cell.experiment = "dependability";
  cell.transport = transport;
  cell.hogs = hogs;
  return dependability_record(cell, calls, silent_dups);
}

nlohmann::json speed_record(const CellConfig& cell, const std::vector<double>& trial_means_us) {
  CellRecord r = CellRecord::begin(cell, "test");
  double mean = std::accumulate(trial_means_us.begin(), trial_means_us.end(), 0.0) /
                static_cast<double>(trial_means_us.size());
  r.speed.size = cell.size;
  r.trials = static_cast<uint32_t>(trial_means_us.size());
  LatencyFigures& l = r.speed.latency;
  l.trial_means_us = trial_means_us;
  l.mean_us = mean;
  l.p50_us = mean;
  l.p99_us = mean * 2;
  l.calls_per_s = 1e6 / mean * cell.clients;
  r.speed.latency_pinned = true;
  keep_stable_fields(r);  // as the run loop does before it appends a record
  return r;
}

nlohmann::json speed_record(const std::string& transport, int clients, size_t size,
                            const std::vector<double>& trial_means_us) {
  CellConfig cell;
  cell.experiment = "speed";
  cell.transport = transport;
  cell.clients = clients;
  cell.size = size;
  return speed_record(cell, trial_means_us);
}

CellRecord typed(const nlohmann::json& record) { return record.get<CellRecord>(); }

std::vector<CellRecord> typed_records(const std::vector<nlohmann::json>& records) {
  std::vector<CellRecord> out;
  for (const nlohmann::json& r : records) out.push_back(typed(r));
  return out;
}

}  // namespace rpclab::harness
