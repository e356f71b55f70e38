#include "harness/speed_summary.h"

#include <fmt/format.h>

#include "core/call_record.h"
#include "harness/experiment.h"
#include "harness/result_record.h"
#include "harness/speed_matrix.h"
#include "harness/speed_metrics.h"
#include "harness/stats.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

std::vector<CallRecord> client_records(const CellConfig& cell, const json& trial) {
  std::vector<CallRecord> records;
  std::string dir = trial.value("trial_dir", "");
  for (int k = 1; k <= cell.clients; ++k)
    records.push_back(CallRecord::read_file(dir + "/client-" + std::to_string(k) + ".rec"));
  return records;
}

// The latest ok record of `transport` with the cell's group (topology,
// connection, clients, size) among the run's records so far.
const json* latest(const std::vector<json>& earlier, const json& cell, const std::string& transport) {
  for (auto it = earlier.rbegin(); it != earlier.rend(); ++it) {
    const json& c = it->at("cell");
    if (it->value("experiment", "") == "speed" && it->value("status", "") == "ok" && c.value("transport", "") == transport &&
        c.value("topology", "") == cell.value("topology", "") && c.value("connect", "") == cell.value("connect", "") &&
        c.value("clients", 0) == cell.value("clients", 0) && c.value("size", 0) == cell.value("size", 0))
      return &*it;
  }
  return nullptr;
}

// The floor's trials ran in the same rounds as this cell's, so a drift of
// the machine touches both alike; Welch's test compares the trial means.
void compare(const CellConfig& cell, json& record, const std::vector<json>& earlier) {
  record["floor_transport"] = record["ratio_to_floor"] = record["welch_vs_floor"] = nullptr;
  bool floor_itself = cell.transport.rfind("raw-", 0) == 0;
  std::string floor = floor_for(cell.transport);
  const json* f = floor_itself ? nullptr : latest(earlier, record.at("cell"), floor);
  if (!f && !floor_itself && floor == "raw-udp") f = latest(earlier, record.at("cell"), floor = "raw-tcp");
  if (f && f->value("p50_us", 0.0) > 0) {
    record["floor_transport"] = floor;
    record["ratio_to_floor"] = record.value("p50_us", 0.0) / f->value("p50_us", 0.0);
    WelchResult w = welch_t_test(record.at("trial_means_us").get<std::vector<double>>(),
                                 f->at("trial_means_us").get<std::vector<double>>());
    record["welch_vs_floor"] = {{"t", w.t}, {"df", w.df}, {"p", w.p}, {"significant_at_0_01", w.significant(0.01)}};
  }
  if (!floor_itself) return;
  json probe = record.at("cell");
  probe["connect"] = "persistent";
  probe["clients"] = 1;
  const json* s = latest(earlier, probe, cell.transport == "raw-udp" ? kSockperfUdp : kSockperfTcp);
  record["ratio_to_sockperf"] =
      s && s->value("p50_us", 0.0) > 0 ? json(record.value("p50_us", 0.0) / s->value("p50_us", 0.0)) : json(nullptr);
}

void summarize_rpc(const CellConfig& cell, const std::vector<json>& ok, const std::vector<json>& earlier, json& record) {
  std::vector<std::vector<CallRecord>> trials;
  double served = 0, server_cpu = 0, bytes = 0, packets = 0;
  bool wire = false;
  for (const json& t : ok) {
    trials.push_back(client_records(cell, t));
    served += t.value("echo_served", 0.0);
    server_cpu += t.value("server_cpu_us", 0.0);
    if (t.value("wire", json()).is_object()) {
      wire = true;
      bytes += t["wire"].value("bytes", 0.0);
      packets += t["wire"].value("packets", 0.0);
    }
  }
  SpeedMetrics m = speed_metrics(trials);
  record.update(m.to_json());
  record["cpu_us_per_call"] = {{"client", m.client_cpu_us_per_call}, {"server", served > 0 ? server_cpu / served : 0.0}};
  record["wire"] = wire && served > 0 ? json{{"bytes_per_call", bytes / served}, {"packets_per_call", packets / served}}
                                      : json(nullptr);
  record["settings"] = ok.front().value("settings", json::object());
  std::string reason = record.value("reason", "");
  auto note = [&](const std::string& more) { reason += (reason.empty() ? "" : "; ") + more; };
  if (m.errors) note(fmt::format("{} calls failed and are left out of the latency figures", m.errors));
  for (const json& t : ok)
    if (!t.value("reason", "").empty()) note(fmt::format("trial {}: {}", t.value("trial", 0), t.value("reason", "")));
  mark(record, "ok", reason);
  compare(cell, record, earlier);
}

}  // namespace

void summarize_speed(const CellConfig& cell, const std::vector<json>& trials, const std::vector<json>& earlier,
                     json& record) {
  record["size"] = cell.size;
  record["calls_per_trial"] = cell.calls_per_client;
  record["warmup"] = cell.warmup;
  if (!trials.empty()) record["latency_pinned"] = trials.front().value("latency_pinned", false);
  std::vector<json> ok = ok_trials(trials);
  if (ok.empty()) return;
  if (is_calibration(cell.transport)) {
    for (const char* k : {"p50_us", "p90_us", "p99_us", "p999_us", "max_us", "mean_us", "calls_measured", "calls_per_s",
                          "seconds_per_100_calls", "calibration", "sockperf_message_size"})
      record[k] = ok.front().at(k);
    return;
  }
  summarize_rpc(cell, ok, earlier, record);
}

}  // namespace rpclab::harness
