#include "synthetic_records.h"

#include <numeric>

#include "harness/dependability/classify.h"
#include "harness/dependability/dependability_summary.h"
#include "harness/run/result_record.h"
#include "netem/spec/fault_fields.h"

namespace rpclab::harness {

nlohmann::json dependability_record(const CellConfig& cell, uint64_t calls, uint64_t silent_dups) {
  nlohmann::json r = base_record(cell, "test");
  ClassCounts c;
  c.calls = calls;
  c.correct = calls - silent_dups;
  c.duplicate_calls = c.silent_duplicates = c.extra_executions = silent_dups;
  add_classes(r, c);
  r["load"] = {{"hogs", cell.hogs}, {"run_queue_mean", cell.hogs + 1.0}};
  r["faults"] = {{"backend", netem::is_empty(cell.faults) ? "none" : "nftables"}};
  add_promised_fields(r);  // as the run loop does before it appends a record
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
  nlohmann::json r = base_record(cell, "test");
  double mean = std::accumulate(trial_means_us.begin(), trial_means_us.end(), 0.0) /
                static_cast<double>(trial_means_us.size());
  r["size"] = cell.size;
  r["trials"] = trial_means_us.size();
  r["trial_means_us"] = trial_means_us;
  r["mean_us"] = mean;
  r["p50_us"] = mean;
  r["p99_us"] = mean * 2;
  r["calls_per_s"] = 1e6 / mean * cell.clients;
  r["latency_pinned"] = true;
  add_promised_fields(r);  // as the run loop does before it appends a record
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

}  // namespace rpclab::harness
