#include "harness/speed/speed_session.h"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "common/atomic_file.h"
#include "common/start_gate.h"
#include "client/client_run.h"
#include "harness/run/cell_failure.h"
#include "harness/paths/path_placement.h"
#include "harness/paths/path_servers.h"
#include "harness/paths/proxy_process.h"
#include "harness/placement/local_placement.h"
#include "transport/settings_table.h"
#include "harness/run/result_record.h"
#include "harness/speed/ghz.h"
#include "harness/speed/sockperf.h"
#include "harness/speed/speed_matrix.h"
#include "harness/speed/speed_metrics.h"
#include "netem/faults/netem_qdisc.h"
#include "process/command_runner.h"
#include "server/server_stats.h"
#include "client/call_record_header.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Parallel clients start their recorded calls together at this offset from
// launch, until a one-client trial has shown how long a launch takes:
// enough for the slowest (gRPC) client to start and warm up.
constexpr double kFirstBarrierMs = 300;
constexpr double kLeastBarrierMs = 50;
constexpr int kSockperfPort = 11111;

int64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// The client's end of the two-host link, each way: what it sends (tx) is
// the requests, with the ACKs of the replies; what it receives (rx), the
// replies with the ACKs of the requests. Packets as the kernel counts them
// (/proc/net/dev, as `ip -s link`; an offloaded run of segments is one), headers included;
// speed_summary takes the headers off.
struct WireCounters {
  uint64_t tx_bytes = 0, tx_packets = 0, rx_bytes = 0, rx_packets = 0;
};

// The interface's counters as the kernel keeps them for /proc/net/dev,
// read from inside the client's namespace by this thread alone (setns,
// then back). Two `ip netns exec ... ip -s -j link show` a trial cost each
// two-host trial two program starts, a mount namespace and a sysfs mount
// each: 120 and 147 ms of one trial's 661 ms between calls (strace -f -tt
// of a sunrpc-tcp two-host trial, the machine at a load of 27), the
// largest share of what two-host paid beyond loopback.
WireCounters read_wire(const netem::Host& client, process::CommandLog& log) {
  log.comment("counters of " + client.ifname + " in netns " + client.netns + " (/proc/net/dev, read in-process)");
  auto fail = [&](const std::string& what, int err) {
    return CellFailure("cannot read " + client.ifname + "'s counters in netns " + client.netns + ": " + what + ": " +
                       std::strerror(err));
  };
  int home = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) throw fail("/proc/thread-self/ns/net", errno);
  int there = ::open(("/run/netns/" + client.netns).c_str(), O_RDONLY | O_CLOEXEC);
  if (there < 0 || ::setns(there, CLONE_NEWNET) != 0) {
    int err = errno;
    if (there >= 0) ::close(there);
    ::close(home);
    throw fail("setns", err);
  }
  std::ifstream dev("/proc/thread-self/net/dev");
  std::string text((std::istreambuf_iterator<char>(dev)), std::istreambuf_iterator<char>());
  bool back = ::setns(home, CLONE_NEWNET) == 0;
  int err = errno;
  ::close(there);
  ::close(home);
  if (!back) throw fail("setns back", err);  // this thread would run everything after in the client's namespace
  std::optional<netem::InterfaceStats> c = netem::parse_net_dev(text, client.ifname);
  if (!c) throw CellFailure("no line for " + client.ifname + " in /proc/net/dev of netns " + client.netns);
  return {c->tx_bytes, c->tx_packets, c->rx_bytes, c->rx_packets};
}

WireCounts wire_delta(const WireCounters& before, const WireCounters& after) {
  uint64_t tx = after.tx_bytes - before.tx_bytes, rx = after.rx_bytes - before.rx_bytes;
  uint64_t tx_p = after.tx_packets - before.tx_packets, rx_p = after.rx_packets - before.rx_packets;
  return {tx + rx, tx_p + rx_p, tx, tx_p, rx, rx_p};
}

// Calls the server ran in a trial, whatever their kind (warm-up included,
// as the link's counters include it), from its stats file (SIGUSR1; not a
// record: docs/results-format.md, "Server ready and stats files").
double served(const json& stats) { return stats.get<ServerStats>().served(); }

double server_cpu_us(const json& stats) { return stats.get<ServerStats>().cpu_us(); }

}  // namespace

std::string speed_cannot_run(const CellConfig& cell, const CellEnvironment& env) {
  if (env.remote && is_calibration(cell.transport))
    return "calibration (sockperf, ghz) runs between this host's own namespaces, not with --server-host";
  if (std::string why = adapter_cannot_run(cell, static_cast<bool>(env.remote)); !why.empty()) return why;
  if (cell.rate_per_s && !is_calibration(cell.transport)) {
    const TransportRow* row = find_transport(cell.transport);
    if (row && row->adapter)
      return fmt::format("open loop (@ {:g}/s): an adapter's client takes no --rate; rpclab's own clients do", *cell.rate_per_s);
  }
  if (!cell.path.empty()) {
    if (env.remote) return "a path's proxy and replicas run in this kernel's namespaces, not with --server-host";
    if (std::string why = path_cannot_run(cell, env.caps); !why.empty()) return why;
  } else if (env.remote) {
    return "";
  }
  if (cell.path.empty() && cell.topology == netem::TopologyKind::kTwoHost && !env.caps.root)
    return "the two-host topology needs root for network namespaces";
  if (cell.transport == kGhz) {
    std::string why;
    find_ghz(&why);
    return why;
  }
  if (is_calibration(cell.transport)) {
    if (!env.caps.sockperf) return "sockperf is not installed (apt-get install sockperf)";
    if (cell.size > kSockperfMaxSize) return fmt::format("sockperf's messages stop below {} bytes", kSockperfMaxSize + 1);
    return "";
  }
  const TransportRow* row = find_transport(cell.transport);
  if (!row) return "";
  ClientSettings s = row->client_settings(cell.client_options());
  Operation op = *parse_operation(cell.op);
  size_t bytes = payload_bytes(op, cell.size);
  if (bytes > s.max_payload) {
    std::string note(row->traits.payload_note);
    std::string what = size_unit(op).empty() ? "" : fmt::format(" ({} {})", cell.size, size_unit(op));
    return fmt::format("{} bytes{} do not fit one {} call (at most {}{})", bytes, what, cell.transport, s.max_payload,
                       note.empty() ? "" : "; " + note);
  }
  return "";
}

namespace {

// A barrier is learnt per topology, transport, connection mode and size:
// launching and warming up a client is what it has to cover.
std::string start_key(const CellConfig& cell) {
  std::string where = cell.path.empty() ? std::string(netem::topology_name(cell.topology))
                                        : fmt::format("{}-x{}", cell.path, cell.replicas);
  return fmt::format("{}/{}/{}/{}/{}", where, cell.transport, connect_mode_name(cell.connect), cell.op, cell.size);
}

}  // namespace

SpeedSession::~SpeedSession() {
  kept_.clear();     // before the servers they call
  servers_.clear();  // before the namespaces they serve in
  placements_.clear();
}

std::string SpeedSession::server_key(const CellConfig& cell) {
  std::string where = cell.path.empty() ? std::string(netem::topology_name(cell.topology))
                                        : fmt::format("path-{}-x{}", cell.path, cell.replicas);
  std::string at_most_once = !cell.at_most_once ? "" : cell.at_most_once_shared ? "-at-most-once-shared" : "-at-most-once";
  return fmt::format("{}-{}{}{}", where, cell.transport, settings_path_part(cell.server_options().settings),
                     at_most_once);
}

// A path's server has namespaces of its own: its proxy, replicas and
// Redis listen on the path's fixed ports, and the session keeps every
// cell's server up while the cells take turns.
std::string SpeedSession::placement_key(const CellConfig& cell) {
  return cell.path.empty() ? std::string(netem::topology_name(cell.topology)) : server_key(cell);
}

Placement& SpeedSession::placement(const CellConfig& cell, CellEnvironment& env, process::CommandLog& log) {
  auto& slot = placements_[placement_key(cell)];
  if (slot) return *slot;
  if (env.remote) return *(slot = env.remote(cell, log));
  // A path: its namespaces, no faults on its links.
  if (!cell.path.empty())
    return *(slot = std::make_unique<PathPlacement>(cell, *find_path(cell.path),
                                                    netem::Choice{netem::BackendKind::kNone, "no faults"}, env, log));
  // A speed cell's loopback is the host's own: the calls cross nothing the
  // harness made, as a user's would.
  slot = std::make_unique<LocalPlacement>(cell.topology, netem::LoopbackPlace::kHost,
                                          netem::Choice{netem::BackendKind::kNone, "no faults"}, env, log);
  // Per-call cells open thousands of connections a minute; let the client
  // reuse TIME_WAIT ports inside our own namespace (loopback already does).
  if (cell.topology == netem::TopologyKind::kTwoHost)
    process::run_checked({"sysctl", "-q", "-w", "net.ipv4.tcp_tw_reuse=1"}, log, slot->client_end().host->netns);
  return *slot;
}

// The watchdog of a kept server fires this long after a trial's time limit.
constexpr int kWatchdogGrace_s = 5;

TrialServer& SpeedSession::server(const CellConfig& cell, Placement& at, CellEnvironment& env) {
  RunningServer& slot = servers_[server_key(cell)];
  if (slot.server) {
    slot.server->check_alive();
    slot.server->keep_for(env.cell_time_limit_s + kWatchdogGrace_s);
    return *slot.server;
  }
  slot.files = std::make_unique<CellFiles>(CellFiles{run_dir_ + "/servers/" + server_key(cell)});
  std::filesystem::create_directories(slot.files->dir);
  slot.server = at.start_server(cell, *slot.files, "speed-" + server_key(cell));
  return *slot.server;
}

// How long the start gate waits for every client to be ready before it
// lets the ready ones go.
constexpr double kGateGiveUpMs = 30000;

// The barrier for parallel clients: three times the longest a single
// client of the same kind took from launch to its first recorded call,
// times the clients per CPU (they launch together), at least 50 ms; 300 ms
// until one has been seen. Each trial whose clients still began more than
// a millisecond apart doubles it for that many clients (at most 300 ms).
// The barrier used and the skew are in the trial's record.
double SpeedSession::barrier_ms(const CellConfig& cell) const {
  auto launch = launch_ms_.find(start_key(cell));
  if (launch == launch_ms_.end()) return kFirstBarrierMs;
  double cpus = std::max(1u, std::thread::hardware_concurrency());
  auto late = late_.find(start_key(cell) + "/x" + std::to_string(cell.clients));
  double doubling = late == late_.end() ? 1 : std::pow(2.0, late->second);
  return std::clamp(3 * launch->second * std::ceil(cell.clients / cpus) * doubling, kLeastBarrierMs, kFirstBarrierMs);
}

std::vector<std::string> SpeedSession::call_args(const CellConfig& cell) const {
  std::vector<std::string> args = {"--op", cell.op, "--size", std::to_string(cell.size), "--warmup",
                                   std::to_string(cell.warmup)};
  if (cell.rate_per_s) args.insert(args.end(), {"--rate", fmt::format("{:g}", *cell.rate_per_s)});
  // The run folder syncs in batches (the speed row's sync_batch); an
  // adapter's client writes its record its own way.
  const TransportRow* row = find_transport(cell.transport);
  if (row && !row->adapter) args.push_back("--record-unsynced");
  return args;
}

std::vector<std::string> SpeedSession::start_args(const CellConfig& cell, const StartGate* gate,
                                                  double* barrier) const {
  *barrier = cell.clients > 1 && !gate ? barrier_ms(cell) : 0;
  if (gate) return {"--start-gate", gate->dir()};
  if (cell.clients > 1) return {"--start-at", std::to_string(realtime_ns() + static_cast<int64_t>(*barrier * 1e6))};
  return {};
}

ClientResults SpeedSession::run_clients(const CellConfig& cell, const TrialPlace& place, Placement& at,
                                        TrialServer& srv, CellEnvironment& env, const StartGate* gate,
                                        const WaitPoll& open_gate, TrialRecord& trial,
                                        double* barrier) {
  CellFiles files{place.dir};
  auto limit = std::chrono::seconds(env.cell_time_limit_s);
  auto tick = [&] { srv.check_alive(); };
  std::unique_ptr<KeptClients>& kept = kept_[place.cell_index];
  // Kept clients pass a start gate, so they need one where they are many.
  if (!kept && clients_can_be_kept(cell) && (gate || cell.clients == 1))
    kept = at.keep_clients(cell, call_args(cell), srv.endpoint(), std::filesystem::path(place.dir).parent_path());
  if (!kept) {
    std::vector<std::string> args = call_args(cell);
    for (std::string& a : start_args(cell, gate, barrier)) args.push_back(std::move(a));
    kept_.erase(place.cell_index);
    trial.speed.clients_kept = false;
    return at.run_clients(cell, args, srv.endpoint(), files, place, limit, tick, open_gate);
  }
  *barrier = 0;
  trial.speed.clients_kept = true;
  try {
    ClientResults results = kept->run_trial(files, gate ? gate->dir() : "", limit, tick, open_gate);
    if (kept->spent() || place.trial >= place.trials) kept_.erase(place.cell_index);
    return results;
  } catch (...) {
    kept_.erase(place.cell_index);  // the next trial starts new ones
    throw;
  }
}

// Parallel clients on this machine whose program takes --start-gate
// (rpclab-client, an adapter whose manifest says start_gate) begin behind
// a gate; others, and clients on another host, at a guessed instant.
std::unique_ptr<StartGate> SpeedSession::start_gate(const CellConfig& cell, const Placement& at,
                                                    const TrialPlace& place) const {
  if (cell.clients < 2 || !at.clients_see_files()) return nullptr;
  const TransportRow* row = find_transport(cell.transport);
  if (!row || (row->adapter && !row->adapter->start_gate)) return nullptr;
  return std::make_unique<StartGate>(place.dir, cell.clients);
}

void SpeedSession::learn_start(const CellConfig& cell, const std::vector<CallRecord>& records, int64_t launched_ns) {
  if (records.empty()) return;
  int64_t first = INT64_MAX, last = 0;
  for (const CallRecord& r : records) {
    int64_t start = header_of(r).start_realtime_ns;
    first = std::min(first, start);
    last = std::max(last, start);
  }
  if (cell.clients == 1) {
    double& launch = launch_ms_[start_key(cell)];
    launch = std::max(launch, static_cast<double>(first - launched_ns) / 1e6);
  } else if (static_cast<double>(last - first) / 1e6 > 1) {
    ++late_[start_key(cell) + "/x" + std::to_string(cell.clients)];
  }
}

void SpeedSession::measure_rpc(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                               process::CommandLog& log, TrialRecord& trial) {
  Placement& at = placement(cell, env, log);
  TrialServer& srv = server(cell, at, env);
  at.describe(trial);
  auto* path = dynamic_cast<PathServers*>(&srv);
  if (path) path->describe(trial);  // which path, its proxy's version and configuration
  // The server's counters after its last trial are its counters before
  // this one: nothing calls a kept server between its cells' trials but
  // ghz's calibration, which forgets them. One stats request a trial, where
  // two cost a SIGUSR1 and the server's fsync'd stats file each (75 and 44
  // ms in the trace of read_wire's comment).
  std::optional<json>& last = servers_[server_key(cell)].last_stats;
  std::optional<json> before = last ? last : srv.stats();
  last.reset();  // until this trial has its own `after`
  if (!before) throw CellFailure("the server did not answer a stats request (SIGUSR1)");
  std::optional<double> proxy_before = path ? path->proxy_cpu_us() : std::nullopt;
  // The link's counters are read where the client's end is this machine's
  // own namespace (not with --server-host: that interface is not ours).
  const netem::Host* client = at.client_end().host;
  bool two_host = client && !client->netns.empty() && cell.topology == netem::TopologyKind::kTwoHost;
  WireCounters wire_before = two_host ? read_wire(*client, log) : WireCounters{};
  double barrier = 0;
  int64_t launched = realtime_ns();
  std::unique_ptr<StartGate> gate = start_gate(cell, at, place);
  // The gate's ready FIFO wakes the wait on the clients the moment one of
  // them is ready, so the last one is let go at once, not at the wait's
  // next 5 ms pass (2.5 ms a parallel trial on average).
  auto open_gate = [&]() -> int {
    if (!gate || gate->poll()) return -1;
    if (gate->waited_ms() < kGateGiveUpMs) return gate->ready_fd();
    // A client that died before it was ready must not hold the others
    // until the cell's limit; the trial fails on that client's exit.
    log.comment(fmt::format("start gate: {} of {} clients ready after {:.0f} ms; letting them go", gate->ready(),
                            cell.clients, gate->waited_ms()));
    gate->release();
    return -1;
  };
  ClientResults clients = run_clients(cell, place, at, srv, env, gate.get(), open_gate, trial, &barrier);
  auto after = srv.stats();
  if (!after) throw CellFailure("the server did not answer a stats request after the trial");
  last = after;
  if (proxy_before) trial.speed.proxy_cpu_us = *path->proxy_cpu_us() - *proxy_before;
  if (!*trial.speed.clients_kept) learn_start(cell, clients.records, launched);
  SpeedMetrics m = speed_metrics({clients.records});
  SpeedTrial& s = trial.speed;
  s.latency.calls_measured = m.calls;
  s.latency.errors = m.errors;
  s.latency.p50_us = m.p50_us;
  s.latency.p99_us = m.p99_us;
  s.latency.mean_us = m.mean_us;
  s.latency.calls_per_s = m.calls_per_s;
  s.latency.offered_per_s = m.offered_per_s;
  s.latency.start_skew_ms = m.start_skew_ms;
  s.start_barrier_ms = gate ? gate->waited_ms() : barrier;
  if (cell.clients > 1) s.start_by = gate ? "gate" : "instant";
  s.client_cpu_us = m.client_cpu_us_per_call * static_cast<double>(m.calls + m.errors);
  s.calls_served = served(*after) - served(*before);
  if (after->contains("cpu_from")) {  // an adapter's server that counts nothing for us: the clients' calls
    s.server_cpu_from = after->value("cpu_from", "");
    s.calls_served = static_cast<double>(m.calls + m.errors + cell.warmup * static_cast<uint64_t>(cell.clients));
  }
  s.server_cpu_us = server_cpu_us(*after) - server_cpu_us(*before);
  s.wire = two_host ? MaybeNull<WireCounts>::of(wire_delta(wire_before, read_wire(*client, log)))
                    : MaybeNull<WireCounts>::null();
  trial.settings = clients.records.front().settings();
  if (clients.truncated) mark(trial, "ok", "the cell time limit stopped the clients early");
}

namespace {

// A calibration tool's figures, as its trial records them.
void record_calibration(const CalibrationLatency& r, TrialRecord& trial) {
  LatencyFigures& l = trial.speed.latency;
  l.p50_us = r.p50_us;
  l.p90_us = r.p90_us;
  l.p99_us = r.p99_us;
  l.p999_us = r.p999_us;
  l.max_us = r.max_us;
  l.mean_us = r.avg_us;
  l.calls_measured = r.observations;
  l.errors = r.errors;
  l.calls_per_s = r.duration_s > 0 ? static_cast<double>(r.observations) / r.duration_s : 0.0;
  l.seconds_per_100_calls = r.avg_us * 100 / 1e6;
  trial.speed.calibration = true;
}

}  // namespace

void SpeedSession::measure_sockperf(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                                    process::CommandLog& log, TrialRecord& trial) {
  Placement& at = placement(cell, env, log);
  const netem::Host& server_host = *at.server_end();
  const netem::Host& client_host = *at.client_end().host;
  bool tcp = cell.transport == kSockperfTcp;
  std::string port = std::to_string(kSockperfPort);
  std::vector<std::string> server_argv = {"sockperf", "server", "-i", server_host.address, "-p", port};
  std::vector<std::string> client_argv = {"sockperf", "ping-pong", "-i", server_host.address, "-p", port,
                                          "-m", std::to_string(std::max(cell.size, kSockperfMinSize)),
                                          "-t", "1", "--full-rtt"};
  if (tcp) server_argv.push_back("--tcp"), client_argv.push_back("--tcp");
  server_argv[0] = client_argv[0] = process::tool_path("sockperf");
  process::SpawnOptions s;
  s.netns = server_host.netns;
  s.stdout_path = s.stderr_path = place.dir + "/sockperf-server.log";
  // Ready once its socket is bound (sockperf says nothing when it is): a
  // fixed 300 ms sleep here was most of what a cell spent besides
  // sockperf's own 2 s.
  ListeningProcess server("sockperf server", server_argv, s, kSockperfPort, !tcp, s.stdout_path, log);
  process::SpawnOptions c;
  c.netns = client_host.netns;
  c.stdout_path = c.stderr_path = place.dir + "/sockperf-client.log";
  process::ChildProcess client(client_argv, c, log);
  auto status = client.wait_for(30s);
  server.stop();
  std::string output = read_whole_file(place.dir + "/sockperf-client.log");
  auto r = parse_sockperf(output);
  if (!status || !r) throw CellFailure("sockperf ping-pong gave no result: " + log_tail(place.dir + "/sockperf-client.log"));
  record_calibration(*r, trial);
  trial.speed.sockperf_message_size = std::max(cell.size, kSockperfMinSize);
}

void SpeedSession::measure_ghz(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                               process::CommandLog& log, TrialRecord& trial) {
  std::string why;
  std::string ghz = find_ghz(&why);
  if (ghz.empty()) throw CellFailure(why);
  // The server the grpc row's cells of this topology use, kept for the run.
  CellConfig grpc = cell;
  grpc.transport = calibrated_row(cell.transport);
  Placement& at = placement(grpc, env, log);
  TrialServer& srv = server(grpc, at, env);
  servers_[server_key(grpc)].last_stats.reset();  // ghz's calls are no trial's of that server
  at.describe(trial);
  std::string data = place.dir + "/ghz-request.json", report = place.dir + "/ghz-report.json";
  write_file_atomically(data, ghz_echo_request(cell.size));
  process::SpawnOptions c;
  c.netns = at.client_end().host->netns;
  c.stdout_path = c.stderr_path = place.dir + "/ghz.log";
  process::ChildProcess client(ghz_argv(ghz, srv.endpoint(), cell.calls_per_client, cell.warmup,
                                        cell.timeout_ms.value_or(10000), data, report),
                               c, log);
  auto status = client.wait_for(std::chrono::seconds(env.cell_time_limit_s));
  if (!status) {
    client.stop(2s);
    throw CellFailure(fmt::format("ghz did not end within the cell's {} s", env.cell_time_limit_s));
  }
  srv.check_alive();
  std::optional<CalibrationLatency> r;
  try {
    r = parse_ghz(nlohmann::json::parse(read_whole_file(report)));
  } catch (const std::exception& e) {
    throw CellFailure(std::string("ghz wrote no report: ") + e.what() + "; " + log_tail(place.dir + "/ghz.log"));
  }
  if (!r) throw CellFailure("ghz's report has no successful call: " + log_tail(place.dir + "/ghz.log"));
  record_calibration(*r, trial);
}

void SpeedSession::run_trial(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                             process::CommandLog& log, TrialRecord& trial) {
  trial.speed.latency_pinned = latency_pinned_;
  if (std::string why = speed_cannot_run(cell, env); !why.empty()) return mark(trial, "skipped", why);
  try {
    if (cell.transport == kGhz)
      measure_ghz(cell, place, env, log, trial);
    else if (is_calibration(cell.transport))
      measure_sockperf(cell, place, env, log, trial);
    else
      measure_rpc(cell, place, env, log, trial);
  } catch (const Interrupted&) {
    throw;
  } catch (...) {
    servers_.erase(server_key(cell));  // a server in doubt is not reused
    throw;
  }
}

}  // namespace rpclab::harness
