// The load on the server as the records hold it (`load`): what a trial
// measured in its own window (netem::LoadMeter), and a cell's figures over
// its trials. docs/results-format.md says what each figure is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/maybe_null.h"
#include "netem/load/load_meter.h"

namespace rpclab::harness {

struct TrialLoad {
  int hogs = 0;
  // Why nothing was measured (--server-host: the server is on another host).
  std::optional<std::string> not_measured;
  // The server's CPU, its own threads and the machine, over the window;
  // left out when nothing was measured, null where the kernel could not say.
  std::optional<double> window_s;
  std::optional<int> samples;
  MaybeNull<int> server_cpu;
  MaybeNull<double> server_cpu_run_queue;
  MaybeNull<std::string> server_cpu_method;
  MaybeNull<double> server_wait_us_per_timeslice;
  std::optional<double> server_run_s, server_wait_s;
  std::optional<uint64_t> server_timeslices;
  std::optional<double> run_queue_mean, loadavg_1m;
  // How long the hogs took to be running on the server's CPU, and where
  // the server (with the hogs) and the clients were pinned.
  std::optional<double> settle_s;
  std::optional<bool> settled;
  std::optional<std::vector<int>> server_cpus, client_cpus;

  static TrialLoad measured(const netem::MeasuredLoad& m);
};
void to_json(nlohmann::json& j, const TrialLoad& l);
void from_json(const nlohmann::json& j, TrialLoad& l);

struct CellLoad {
  int hogs = 0;
  MaybeNull<double> server_cpu_run_queue;                        // the trials' mean
  MaybeNull<std::pair<double, double>> server_cpu_run_queue_range;  // lowest and highest trial
  MaybeNull<std::string> server_cpu_method;
  MaybeNull<double> server_wait_us_per_timeslice;  // over all trials
  MaybeNull<double> run_queue_mean, loadavg_1m;    // the trials' means
  std::optional<int> samples;
  std::optional<std::vector<int>> server_cpus, client_cpus;
};
void to_json(nlohmann::json& j, const CellLoad& l);
void from_json(const nlohmann::json& j, CellLoad& l);

}  // namespace rpclab::harness
