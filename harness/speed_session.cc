#include "harness/speed_session.h"

#include <time.h>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/atomic_file.h"
#include "harness/cell_failure.h"
#include "harness/result_record.h"
#include "harness/sockperf.h"
#include "harness/speed_matrix.h"
#include "harness/speed_metrics.h"
#include "netem/command_runner.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Parallel clients start their recorded calls together at this offset from
// launch: enough for the slowest (gRPC) client to start and warm up.
constexpr auto kStartBarrier = 300ms;
constexpr int kSockperfPort = 11111;

int64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

struct WireCounters {
  uint64_t bytes = 0, packets = 0;
};

// Both directions through the client's end of the two-host link.
WireCounters read_wire(const netem::Host& client, netem::CommandLog& log) {
  netem::CommandResult r = netem::run_checked({"ip", "-s", "-j", "link", "show", "dev", client.ifname}, log, client.netns);
  json j = json::parse(r.out);
  const json& s = j.at(0).at("stats64");
  return {s.at("rx").at("bytes").get<uint64_t>() + s.at("tx").at("bytes").get<uint64_t>(),
          s.at("rx").at("packets").get<uint64_t>() + s.at("tx").at("packets").get<uint64_t>()};
}

double server_cpu_us(const json& stats) {
  return stats.value("cpu_user_us", 0.0) + stats.value("cpu_sys_us", 0.0);
}

std::string skip_reason(const CellConfig& cell, const CellEnvironment& env) {
  if (cell.topology == netem::TopologyKind::kTwoHost && !env.caps.root)
    return "the two-host topology needs root for network namespaces";
  if (is_calibration(cell.transport)) {
    if (!env.caps.sockperf) return "sockperf is not installed (apt-get install sockperf)";
    if (cell.size > kSockperfMaxSize) return fmt::format("sockperf's messages stop below {} bytes", kSockperfMaxSize + 1);
    return "";
  }
  const TransportRow* row = find_transport(cell.transport);
  if (!row) return "";
  ClientSettings s = row->client_settings(cell.client_options());
  if (cell.size > s.max_payload) {
    std::string note(row->traits.payload_note);
    return fmt::format("{} bytes do not fit one {} call (at most {}{})", cell.size, cell.transport, s.max_payload,
                       note.empty() ? "" : "; " + note);
  }
  return "";
}

std::vector<std::string> echo_args(const CellConfig& cell) {
  std::vector<std::string> args = {"--op", "echo", "--size", std::to_string(cell.size), "--warmup",
                                   std::to_string(cell.warmup)};
  if (cell.clients > 1) {
    auto at = realtime_ns() + std::chrono::duration_cast<std::chrono::nanoseconds>(kStartBarrier).count();
    args.insert(args.end(), {"--start-at", std::to_string(at)});
  }
  return args;
}

}  // namespace

SpeedSession::~SpeedSession() {
  servers_.clear();  // before the namespaces they serve in
  topologies_.clear();
}

std::string SpeedSession::server_key(const CellConfig& cell) {
  return fmt::format("{}-{}-{}{}", netem::topology_name(cell.topology), cell.transport, cell.udp_bufsize,
                     cell.server_options().tcp_nodelay ? "-nodelay" : "");
}

std::string SpeedSession::group_key(const CellConfig& cell, const std::string& transport) {
  return fmt::format("{}/{}/{}/{}/{}{}", netem::topology_name(cell.topology), transport,
                     connect_mode_name(cell.connect), cell.clients, cell.size, cell.tcp_nodelay ? "/nodelay" : "");
}

netem::Topology& SpeedSession::topology(netem::TopologyKind kind, netem::CommandLog& log) {
  auto& slot = topologies_[kind];
  if (!slot) {
    slot = netem::Topology::create(kind, log);
    // Per-call cells open thousands of connections a minute; let the client
    // reuse TIME_WAIT ports inside our own namespace (loopback already does).
    if (kind == netem::TopologyKind::kTwoHost)
      netem::run_checked({"sysctl", "-q", "-w", "net.ipv4.tcp_tw_reuse=1"}, log, slot->client().netns);
  }
  return *slot;
}

ServerUnderTest& SpeedSession::server(const CellConfig& cell, netem::Topology& topo, CellEnvironment& env,
                                      netem::CommandLog& log) {
  RunningServer& slot = servers_[server_key(cell)];
  if (slot.server) {
    slot.server->check_alive();
    return *slot.server;
  }
  slot.files = std::make_unique<CellFiles>(CellFiles{run_dir_ + "/servers/" + server_key(cell)});
  std::filesystem::create_directories(slot.files->dir);
  ProcessPlacement placement = place_processes(cell, env.bin_dir, env.caps.cpus, env.stop);
  slot.server = std::make_unique<ServerUnderTest>(cell, topo.server(), *slot.files, placement, log);
  return *slot.server;
}

// The floor measured for this cell's group: the row's floor, else that
// floor's own floor (raw-udp's is raw-tcp), as far as the chain goes.
std::map<std::string, SpeedSession::Measured>::const_iterator SpeedSession::floor_measured(const CellConfig& cell,
                                                                                          std::string* floor) const {
  const TransportRow* row = find_transport(cell.transport);
  for (int hop = 0; row && hop < 4; ++hop) {
    *floor = std::string(row->traits.floor);
    auto it = measured_.find(group_key(cell, *floor));
    if (it != measured_.end() || *floor == row->name) return it;
    row = find_transport(*floor);
  }
  return measured_.end();
}

void SpeedSession::compare(const CellConfig& cell, json& record, const Measured& m) {
  std::string floor;
  auto it = floor_measured(cell, &floor);
  record["floor_transport"] = it == measured_.end() ? json(nullptr) : json(floor);
  record["ratio_to_floor"] = json(nullptr);
  record["welch_vs_floor"] = json(nullptr);
  if (it != measured_.end() && it->second.p50_us > 0) {
    record["ratio_to_floor"] = m.p50_us / it->second.p50_us;
    WelchResult w = welch_t_test(m.trial_means_us, it->second.trial_means_us);
    record["welch_vs_floor"] = {{"t", w.t}, {"df", w.df}, {"p", w.p}, {"significant_at_0_01", w.significant(0.01)}};
  }
  const TransportRow* row = find_transport(cell.transport);
  if (row && !row->traits.calibration.empty()) {
    CellConfig probe = cell;
    probe.connect = ConnectMode::kPersistent;
    probe.clients = 1;
    probe.tcp_nodelay = false;
    auto s = measured_.find(group_key(probe, std::string(row->traits.calibration)));
    record["ratio_to_sockperf"] = s == measured_.end() || s->second.p50_us <= 0 ? json(nullptr)
                                                                                : json(m.p50_us / s->second.p50_us);
  }
}

void SpeedSession::measure_rpc(const CellConfig& cell, const std::string& cell_dir, CellEnvironment& env,
                               netem::CommandLog& log, json& record) {
  netem::Topology& topo = topology(cell.topology, log);
  ServerUnderTest& srv = server(cell, topo, env, log);
  auto before = srv.stats();
  if (!before) throw CellFailure("the server did not answer a stats request (SIGUSR1)");
  bool two_host = cell.topology == netem::TopologyKind::kTwoHost;
  WireCounters wire_before = two_host ? read_wire(topo.client(), log) : WireCounters{};
  CellFiles files{cell_dir};
  ProcessPlacement placement = place_processes(cell, env.bin_dir, env.caps.cpus, env.stop);
  ClientResults clients = run_clients(cell, echo_args(cell), topo.client(), srv.endpoint(), files, placement,
                                      std::chrono::seconds(env.cell_time_limit_s), [&] { srv.check_alive(); }, log);
  auto after = srv.stats();
  if (!after) throw CellFailure("the server did not answer a stats request after the cell");
  SpeedMetrics m = speed_metrics(clients.records, cell.calls_per_client / static_cast<uint64_t>(cell.trials));
  record.update(m.to_json());
  double served = after->value("echo_calls", 0.0) - before->value("echo_calls", 0.0);
  record["cpu_us_per_call"] = {{"client", m.client_cpu_us_per_call},
                               {"server", served > 0 ? (server_cpu_us(*after) - server_cpu_us(*before)) / served : 0.0}};
  record["wire"] = json(nullptr);
  if (two_host) {
    WireCounters wire_after = read_wire(topo.client(), log);
    record["wire"] = {{"bytes_per_call", served > 0 ? (wire_after.bytes - wire_before.bytes) / served : 0.0},
                      {"packets_per_call", served > 0 ? (wire_after.packets - wire_before.packets) / served : 0.0}};
  }
  record["settings"] = clients.records.front().header.value("settings", json::object());
  if (m.errors) mark(record, "ok", fmt::format("{} calls failed and are left out of the latency figures", m.errors));
  if (clients.truncated) mark(record, "ok", "the cell time limit stopped the clients early");
  Measured mine{m.p50_us, m.trial_means_us};
  compare(cell, record, mine);
  measured_[group_key(cell, cell.transport)] = mine;
}

void SpeedSession::measure_sockperf(const CellConfig& cell, const std::string& cell_dir, CellEnvironment& env,
                                    netem::CommandLog& log, json& record) {
  netem::Topology& topo = topology(cell.topology, log);
  bool tcp = cell.transport == kSockperfTcp;
  std::string port = std::to_string(kSockperfPort);
  std::vector<std::string> server_argv = {"sockperf", "server", "-i", topo.server().address, "-p", port};
  std::vector<std::string> client_argv = {"sockperf", "ping-pong", "-i", topo.server().address, "-p", port,
                                          "-m", std::to_string(std::max(cell.size, kSockperfMinSize)),
                                          "-t", "1", "--full-rtt"};
  if (tcp) server_argv.push_back("--tcp"), client_argv.push_back("--tcp");
  server_argv[0] = client_argv[0] = netem::tool_path("sockperf");
  netem::SpawnOptions s;
  s.netns = topo.server().netns;
  s.stdout_path = s.stderr_path = cell_dir + "/sockperf-server.log";
  netem::ChildProcess server(server_argv, s, log);
  std::this_thread::sleep_for(300ms);  // sockperf has no readiness signal
  netem::SpawnOptions c;
  c.netns = topo.client().netns;
  c.stdout_path = c.stderr_path = cell_dir + "/sockperf-client.log";
  netem::ChildProcess client(client_argv, c, log);
  auto status = client.wait_for(30s);
  server.stop(2s);
  std::string output = read_whole_file(cell_dir + "/sockperf-client.log");
  auto r = parse_sockperf(output);
  if (!status || !r) throw CellFailure("sockperf ping-pong gave no result: " + log_tail(cell_dir + "/sockperf-client.log"));
  record.update(json{{"p50_us", r->p50_us}, {"p90_us", r->p90_us}, {"p99_us", r->p99_us}, {"p999_us", r->p999_us},
                     {"max_us", r->max_us}, {"mean_us", r->avg_us}, {"calls_measured", r->observations},
                     {"calls_per_s", r->duration_s > 0 ? r->observations / r->duration_s : 0.0},
                     {"seconds_per_100_calls", r->avg_us * 100 / 1e6}, {"calibration", true},
                     {"sockperf_message_size", std::max(cell.size, kSockperfMinSize)}});
  measured_[group_key(cell, cell.transport)] = Measured{r->p50_us, {}};
}

json SpeedSession::run(const CellConfig& cell, const std::string& cell_dir, CellEnvironment& env, netem::CommandLog& log) {
  json record = base_record(cell, env.run_id);
  record["size"] = cell.size;
  record["trials"] = cell.trials;
  record["calls_per_trial"] = cell.calls_per_client / static_cast<uint64_t>(std::max(1, cell.trials));
  record["warmup"] = cell.warmup;
  record["latency_pinned"] = latency_pinned_;
  record["started_at"] = iso8601_now();
  record["cell_dir"] = cell_dir;
  auto t0 = std::chrono::steady_clock::now();
  try {
    if (std::string why = skip_reason(cell, env); !why.empty())
      mark(record, "skipped", why);
    else if (is_calibration(cell.transport))
      measure_sockperf(cell, cell_dir, env, log, record);
    else
      measure_rpc(cell, cell_dir, env, log, record);
  } catch (const CellFailure& e) {
    mark(record, "failed", e.what());
    servers_.erase(server_key(cell));  // a server in doubt is not reused
  } catch (const netem::CommandError& e) {
    mark(record, "failed", e.what());
    servers_.erase(server_key(cell));
  }
  record["ended_at"] = iso8601_now();
  record["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return record;
}

}  // namespace rpclab::harness
