#include "harness/speed/speed_summary.h"

#include <fmt/format.h>

#include "client/call_record.h"
#include "transport/transport.h"
#include "transport/settings_table.h"
#include "harness/run/experiment.h"
#include "harness/run/result_record.h"
#include "harness/speed/speed_matrix.h"
#include "harness/speed/speed_metrics.h"
#include "harness/kit/stats.h"

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
// connection, clients, size, at-most-once, and the settings `transport`
// takes, like TCP_NODELAY) among the run's records so far.
const json* latest(const std::vector<json>& earlier, const json& cell, const std::string& transport) {
  for (auto it = earlier.rbegin(); it != earlier.rend(); ++it) {
    const json& c = it->at("cell");
    if (it->value("experiment", "") == "speed" && it->value("status", "") == "ok" && c.value("transport", "") == transport &&
        c.value("topology", "") == cell.value("topology", "") && c.value("connect", "") == cell.value("connect", "") &&
        c.value("clients", 0) == cell.value("clients", 0) && c.value("size", 0) == cell.value("size", 0) &&
        c.value("op", "echo") == cell.value("op", "echo") &&
        same_settings_for(transport, read_settings(c), read_settings(cell)) &&
        c.value("at_most_once", false) == cell.value("at_most_once", false))
      return &*it;
  }
  return nullptr;
}

// The floor measured for this cell's group: the row's floor, else that
// floor's own floor (raw-udp's is raw-tcp), as far as the chain goes.
const json* floor_record(const TransportRow& row, const std::vector<json>& earlier, const json& cell,
                         std::string* floor) {
  const TransportRow* at = &row;
  for (int hop = 0; at && hop < 4; ++hop) {
    *floor = std::string(at->traits.floor);
    if (const json* f = latest(earlier, cell, *floor)) return f;
    const TransportRow* next = find_transport(*floor);
    if (next == at) break;  // a floor that names itself ends the chain
    at = next;
  }
  return nullptr;
}

// The floor's trials ran in the same rounds as this cell's, so a drift of
// the machine touches both alike; Welch's test compares the trial means. A
// floor itself is compared with its sockperf calibration instead.
void compare(const CellConfig& cell, json& record, const std::vector<json>& earlier) {
  record["floor_transport"] = record["ratio_to_floor"] = record["welch_vs_floor"] = nullptr;
  const TransportRow& row = *find_transport(cell.transport);
  std::string floor;
  const json* f = row.floor() ? nullptr : floor_record(row, earlier, record.at("cell"), &floor);
  if (f && f->value("p50_us", 0.0) > 0) {
    record["floor_transport"] = floor;
    record["ratio_to_floor"] = record.value("p50_us", 0.0) / f->value("p50_us", 0.0);
    WelchResult w = welch_t_test(record.at("trial_means_us").get<std::vector<double>>(),
                                 f->at("trial_means_us").get<std::vector<double>>());
    record["welch_vs_floor"] = {{"t", w.t}, {"df", w.df}, {"p", w.p}, {"significant_at_0_01", w.significant(0.01)}};
  }
  if (row.traits.calibration.empty()) return;
  json probe = record.at("cell");
  probe["connect"] = "persistent";
  probe["clients"] = 1;
  // sockperf runs as it comes: it is no row, and takes no setting.
  const json* s = latest(earlier, probe, std::string(row.traits.calibration));
  record["ratio_to_sockperf"] =
      s && s->value("p50_us", 0.0) > 0 ? json(record.value("p50_us", 0.0) / s->value("p50_us", 0.0)) : json(nullptr);
}

void summarize_rpc(const CellConfig& cell, const std::vector<json>& ok, const std::vector<json>& earlier, json& record) {
  std::vector<std::vector<CallRecord>> trials;
  double served = 0, server_cpu = 0;
  for (const json& t : ok) {
    trials.push_back(client_records(cell, t));
    served += t.value("calls_served", t.value("echo_served", 0.0));  // echo_served: trials before Allman's ops
    server_cpu += t.value("server_cpu_us", 0.0);
  }
  SpeedMetrics m = speed_metrics(trials);
  record.update(m.to_json());
  record["cpu_us_per_call"] = {{"client", m.client_cpu_us_per_call}, {"server", served > 0 ? server_cpu / served : 0.0}};
  record["wire"] = wire_summary(*find_transport(cell.transport), ok, served);
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

// Link-layer bytes of one counted packet that are not the call's own:
// Ethernet 14, IPv4 20, and TCP 20 + 12 of timestamps (Linux's default)
// or UDP 8. The veth counts a segmentation-offload packet once, with one
// set of headers, and a pure ACK is exactly this much, so taking it off
// every counted packet leaves the TCP payload: the RPC's bytes, as Allman
// counted them from tcpdump (his Table 5). A SYN carries 8 bytes more of
// options, and a UDP datagram over the MTU goes as IP fragments with 8
// bytes less: both small beside a call, and in docs/results-format.md.
static double frame_overhead(const TransportRow& row) { return row.datagram() ? 14 + 20 + 8 : 14 + 20 + 32; }

json wire_summary(const TransportRow& row, const std::vector<json>& ok, double served) {
  double sums[6] = {0, 0, 0, 0, 0, 0};
  const char* keys[6] = {"bytes", "packets", "tx_bytes", "tx_packets", "rx_bytes", "rx_packets"};
  for (const json& t : ok) {
    if (!t.value("wire", json()).is_object()) return nullptr;
    for (int k = 0; k < 6; ++k) sums[k] += t["wire"].value(keys[k], 0.0);
  }
  if (ok.empty() || served <= 0) return nullptr;
  double head = frame_overhead(row);
  json w = {{"bytes_per_call", sums[0] / served}, {"packets_per_call", sums[1] / served}};
  if (sums[3] + sums[5] > 0) {  // trials before the split counted both ways together
    w["request_frame_bytes_per_call"] = sums[2] / served;
    w["response_frame_bytes_per_call"] = sums[4] / served;
    w["request_bytes_per_call"] = (sums[2] - head * sums[3]) / served;
    w["response_bytes_per_call"] = (sums[4] - head * sums[5]) / served;
    w["frame_overhead_bytes"] = head;
  }
  return w;
}

void summarize_speed(const CellConfig& cell, const std::vector<json>& trials, const std::vector<json>& earlier,
                     json& record) {
  record["size"] = cell.size;
  record["op"] = cell.op;
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
