// Hand-made dependability trial records, shaped as the trial runner writes
// them, for tests of what is made from them (cell records, reports).
#pragma once

#include <numeric>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/cell_config.h"
#include "harness/dependability/classify.h"
#include "harness/record/trial_counts.h"
#include "harness/run/trial_run.h"

namespace rpclab::harness {

inline CellConfig load_cell(int hogs) {
  CellConfig c;
  c.experiment = "dependability";
  c.block = "load";
  c.transport = "sunrpc-udp";
  c.settings.set(kRetryTimeout, 20);
  c.hogs = hogs;
  c.clients = 8;
  c.calls_per_client = 12500;
  c.trials = 5;
  return c;
}

// One trial: each client's silent duplicates (also its duplicate calls),
// the onsets, and the run queue its server's CPU measured.
inline nlohmann::json trial(const CellConfig& cell, uint32_t number, const std::vector<uint64_t>& silent,
                            size_t onsets, double cpu) {
  nlohmann::json t = trial_record(cell, TrialPlace{1, number, 5, "/nowhere"}, "test");
  TrialCounts counts{number, {}};
  ClassCounts c;
  for (size_t k = 0; k < silent.size(); ++k) {
    counts.clients.push_back({static_cast<uint32_t>(k + 1), cell.calls_per_client, silent[k], silent[k], silent[k]});
    c.calls += cell.calls_per_client;
  }
  c.silent_duplicates = c.duplicate_calls = c.extra_executions = std::accumulate(silent.begin(), silent.end(), 0ull);
  c.correct = c.calls - c.silent_duplicates;
  t["calls"] = c.calls;
  t["classes"] = c;
  t["levy_mismatches"] = c.extra_executions;
  t["counts"] = counts;
  t["episodes"] = {{"rules", {{"clean_calls", 10}, {"window_s", 0.01}}}, {"onsets", onsets},
                   {"error_calls", c.duplicate_calls},
                   {"first_onset_s", onsets ? nlohmann::json(0.66) : nlohmann::json(nullptr)}};
  t["load"] = {{"hogs", cell.hogs},         {"server_cpu_run_queue", cpu}, {"server_cpu_method", "sampled"},
               {"server_wait_s", 0.5},      {"server_timeslices", 1000},   {"run_queue_mean", cpu + 8},
               {"loadavg_1m", 20.0},        {"samples", 20},               {"server_cpus", {0}},
               {"client_cpus", {1}}};
  t["faults"] = {{"backend", "none"}, {"loss_pct", 0.0}, {"dup_pct", 0.0}, {"measured_loss_pct", nullptr},
                 {"measured_dup_pct", nullptr}};
  t["client_wall_s"] = 10.0;
  return t;
}

inline std::vector<nlohmann::json> one_cascade_in_five(const CellConfig& cell) {
  std::vector<nlohmann::json> trials = {trial(cell, 1, {3306, 3365, 3330, 3340, 3320, 3350, 3335, 3345}, 1, 20.5)};
  for (uint32_t i = 2; i <= 5; ++i) trials.push_back(trial(cell, i, std::vector<uint64_t>(8, 0), 0, 21.5));
  return trials;
}

// The trials as the run loop reads them back.
inline std::vector<TrialRecord> typed_trials(const std::vector<nlohmann::json>& trials) {
  std::vector<TrialRecord> out;
  for (const nlohmann::json& t : trials) out.push_back(t.get<TrialRecord>());
  return out;
}

}  // namespace rpclab::harness
