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

std::vector<CallRecord> client_records(const CellConfig& cell, const TrialRecord& trial) {
  std::vector<CallRecord> records;
  for (int k = 1; k <= cell.clients; ++k)
    records.push_back(CallRecord::read_file(trial.trial_dir + "/client-" + std::to_string(k) + ".rec"));
  return records;
}

// The latest ok record of `transport` with the cell's group (topology,
// connection, clients, size, at-most-once, rate, and the settings `transport`
// takes, like TCP_NODELAY) among the run's records so far.
const CellRecord* latest(const std::vector<CellRecord>& earlier, const CellConfig& cell, const std::string& transport) {
  for (auto it = earlier.rbegin(); it != earlier.rend(); ++it) {
    const CellConfig& c = it->cell.config;
    if (it->is("speed") && it->ok() && c.transport == transport && c.topology == cell.topology &&
        c.connect == cell.connect && c.clients == cell.clients && c.size == cell.size && c.op == cell.op &&
        same_settings_for(transport, c.settings, cell.settings) && c.at_most_once == cell.at_most_once &&
        c.rate_per_s == cell.rate_per_s)
      return &*it;
  }
  return nullptr;
}

// The floor measured for this cell's group: the row's floor, else that
// floor's own floor (raw-udp's is raw-tcp), as far as the chain goes.
const CellRecord* floor_record(const TransportRow& row, const std::vector<CellRecord>& earlier, const CellConfig& cell,
                               std::string* floor) {
  const TransportRow* at = &row;
  for (int hop = 0; at && hop < 4; ++hop) {
    *floor = std::string(at->traits.floor);
    if (const CellRecord* f = latest(earlier, cell, *floor)) return f;
    const TransportRow* next = find_transport(*floor);
    if (next == at) break;  // a floor that names itself ends the chain
    at = next;
  }
  return nullptr;
}

double p50_of(const CellRecord& r) { return r.speed.latency.p50_us.value_or(0.0); }

// The floor's trials ran in the same rounds as this cell's, so a drift of
// the machine touches both alike; Welch's test compares the trial means. A
// floor itself is compared with its sockperf calibration instead.
void compare(const CellConfig& cell, CellRecord& record, const std::vector<CellRecord>& earlier) {
  SpeedCell& s = record.speed;
  s.floor_transport = MaybeNull<std::string>::null();
  s.ratio_to_floor = MaybeNull<double>::null();
  s.welch_vs_floor = MaybeNull<WelchVsFloor>::null();
  const TransportRow& row = *find_transport(cell.transport);
  std::string floor;
  const CellRecord* f = row.floor() ? nullptr : floor_record(row, earlier, cell, &floor);
  if (f && p50_of(*f) > 0) {
    s.floor_transport = MaybeNull<std::string>::of(floor);
    s.ratio_to_floor = p50_of(record) / p50_of(*f);
    WelchResult w = welch_t_test(s.latency.trial_means_us.value_or(std::vector<double>{}),
                                 f->speed.latency.trial_means_us.value_or(std::vector<double>{}));
    s.welch_vs_floor = MaybeNull<WelchVsFloor>::of(WelchVsFloor{w.t, w.df, w.p, w.significant(0.01)});
  }
  if (row.traits.calibration.empty()) return;
  CellConfig probe = cell;
  probe.connect = ConnectMode::kPersistent;
  probe.clients = 1;
  // sockperf runs as it comes: it is no row, and takes no setting.
  const CellRecord* cal = latest(earlier, probe, std::string(row.traits.calibration));
  s.ratio_to_sockperf = cal && p50_of(*cal) > 0 ? MaybeNull<double>::of(p50_of(record) / p50_of(*cal))
                                                : MaybeNull<double>::null();
}

void summarize_rpc(const CellConfig& cell, const std::vector<TrialRecord>& ok, const std::vector<CellRecord>& earlier,
                   CellRecord& record) {
  std::vector<std::vector<CallRecord>> trials;
  double served = 0, server_cpu = 0;
  std::optional<double> proxy_cpu;
  std::optional<std::string> server_from;
  for (const TrialRecord& t : ok) {
    if (t.speed.server_cpu_from) server_from = t.speed.server_cpu_from;
    if (t.speed.proxy_cpu_us) proxy_cpu = proxy_cpu.value_or(0.0) + *t.speed.proxy_cpu_us;
    trials.push_back(client_records(cell, t));
    served += t.speed.calls_served.value_or(t.speed.echo_served.value_or(0.0));
    server_cpu += t.speed.server_cpu_us.value_or(0.0);
  }
  SpeedMetrics m = speed_metrics(trials);
  record.speed.latency = m.figures();
  record.speed.cpu_us_per_call = CpuPerCall{m.client_cpu_us_per_call, served > 0 ? server_cpu / served : 0.0,
                                            server_from};
  if (proxy_cpu) record.speed.cpu_us_per_call->proxy = served > 0 ? *proxy_cpu / served : 0.0;
  record.speed.wire = wire_summary(*find_transport(cell.transport), ok, served);
  record.settings = ok.front().settings.value_or(nlohmann::json::object());
  std::string reason = record.reason;
  auto note = [&](const std::string& more) { reason += (reason.empty() ? "" : "; ") + more; };
  if (m.errors) note(fmt::format("{} calls failed and are left out of the latency figures", m.errors));
  for (const TrialRecord& t : ok)
    if (!t.reason.empty()) note(fmt::format("trial {}: {}", t.trial, t.reason));
  mark(record, "ok", reason);
  compare(cell, record, earlier);
}

// Link-layer bytes of one counted packet that are not the call's own:
// Ethernet 14, IPv4 20, and TCP 20 + 12 of timestamps (Linux's default)
// or UDP 8. The veth counts a segmentation-offload packet once, with one
// set of headers, and a pure ACK is exactly this much, so taking it off
// every counted packet leaves the TCP payload: the RPC's bytes, as Allman
// counted them from tcpdump (his Table 5). A SYN carries 8 bytes more of
// options, and a UDP datagram over the MTU goes as IP fragments with 8
// bytes less: both small beside a call, and in docs/results-format.md.
double frame_overhead(const TransportRow& row) { return row.datagram() ? 14 + 20 + 8 : 14 + 20 + 32; }

}  // namespace

MaybeNull<WirePerCall> wire_summary(const TransportRow& row, const std::vector<TrialRecord>& ok, double served) {
  WireCounts sum;
  for (const TrialRecord& t : ok) {
    if (!t.speed.wire.has_value()) return MaybeNull<WirePerCall>::null();
    const WireCounts& w = *t.speed.wire;
    sum.bytes += w.bytes, sum.packets += w.packets;
    sum.tx_bytes += w.tx_bytes, sum.tx_packets += w.tx_packets;
    sum.rx_bytes += w.rx_bytes, sum.rx_packets += w.rx_packets;
  }
  if (ok.empty() || served <= 0) return MaybeNull<WirePerCall>::null();
  auto per_call = [served](uint64_t n) { return static_cast<double>(n) / served; };
  double head = frame_overhead(row);
  WirePerCall w{per_call(sum.bytes), per_call(sum.packets), std::nullopt};
  if (sum.tx_packets + sum.rx_packets > 0)  // trials before the split counted both ways together
    w.each_way = WirePerCall::EachWay{per_call(sum.tx_bytes), per_call(sum.rx_bytes),
                                      (static_cast<double>(sum.tx_bytes) - head * static_cast<double>(sum.tx_packets)) / served,
                                      (static_cast<double>(sum.rx_bytes) - head * static_cast<double>(sum.rx_packets)) / served,
                                      head};
  return MaybeNull<WirePerCall>::of(w);
}

void summarize_speed(const CellConfig& cell, const std::vector<TrialRecord>& trials,
                     const std::vector<CellRecord>& earlier, CellRecord& record) {
  SpeedCell& s = record.speed;
  s.size = cell.size;
  s.op = cell.op;
  s.calls_per_trial = cell.calls_per_client;
  s.warmup = cell.warmup;
  if (!trials.empty()) s.latency_pinned = trials.front().speed.latency_pinned.value_or(false);
  std::vector<TrialRecord> ok = ok_trials(trials);
  if (ok.empty()) return;
  if (is_calibration(cell.transport)) {  // sockperf's own figures, as its trial gave them
    const SpeedTrial& t = ok.front().speed;
    s.latency = t.latency;
    s.calibration = t.calibration;
    s.sockperf_message_size = t.sockperf_message_size;
    return;
  }
  summarize_rpc(cell, ok, earlier, record);
}

}  // namespace rpclab::harness
