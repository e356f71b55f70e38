#include "harness/paths/path_servers.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include <limits>
#include <map>
#include <set>
#include <regex>

#include "harness/causes/cell_causes.h"
#include "harness/paths/path_causes.h"
#include "harness/run/cell_failure.h"
#include "server/journal_reader.h"
#include "netem/events/link_event_rules.h"
#include "process/command_runner.h"

namespace rpclab::harness {
namespace {

constexpr const char* kRedisServer = "/usr/bin/redis-server";

// "Redis server v=7.0.15 sha=..." -> "redis 7.0.15".
std::string redis_version(process::CommandLog& log) {
  static std::string known;
  if (!known.empty()) return known;
  std::string out = process::run({kRedisServer, "--version"}, log).out;
  std::smatch m;
  static const std::regex v(R"(v=(\d+\.\d+\.\d+))");
  return known = std::regex_search(out, m, v) ? "redis " + m[1].str() : "redis";
}

// Every (client, seq) the ledger counted, with its count. A chunk's byte
// is the count only below 255: from 255 on it marks a count kept in the
// ledger's side table, which count() reads.
template <typename F>
void for_each_count(const Ledger& l, F f) {
  for (const auto& [client, entry] : l.clients())
    for (const auto& [chunk, counts] : entry.chunks)
      for (uint32_t i = 0; i < Ledger::kChunkCalls; ++i) {
        uint8_t byte = (*counts)[i];
        if (!byte) continue;
        uint32_t seq = chunk * Ledger::kChunkCalls + i;
        f(client, seq, byte < std::numeric_limits<uint8_t>::max() ? uint32_t{byte} : l.count(client, seq));
      }
}

// Replica k as server events see it: its process and its connections
// (ServerUnderTest), and its entry in the pool of the proxy in front of
// it. The proxy starts after the replicas, so this holds where it will be.
class ReplicaControl : public netem::ServerControl {
 public:
  ReplicaControl(ServerUnderTest& replica, const std::unique_ptr<ProxyProcess>& proxy, const netem::Host& host,
                 int k, process::CommandLog& log)
      : replica_(replica), proxy_(proxy), host_(host), k_(k), log_(log) {}
  nlohmann::json kill() override { return replica_.kill(); }
  nlohmann::json restart() override { return replica_.restart(); }
  nlohmann::json pause() override { return replica_.pause(); }
  nlohmann::json resume() override { return replica_.resume(); }
  nlohmann::json reset_connections() override { return replica_.reset_connections(); }
  nlohmann::json leave_pool() override { return proxy().set_in_pool(k_, false); }
  nlohmann::json join_pool() override { return proxy().set_in_pool(k_, true); }
  // Its own link's root qdisc: nothing else of the trial is on it.
  nlohmann::json slow(int64_t delay_ms) override {
    process::run_checked(netem::tc_delay_argv(host_.ifname, delay_ms), log_, host_.netns);
    return {{"tool", "tc netem"}, {"dev", host_.ifname}, {"netns", host_.netns}, {"delay_ms", delay_ms}};
  }
  nlohmann::json unslow() override {
    process::run_checked(netem::tc_remove_root_argv(host_.ifname), log_, host_.netns);
    return {{"tool", "tc"}, {"dev", host_.ifname}, {"removed", "netem"}};
  }

 private:
  ProxyProcess& proxy() {
    if (!proxy_) throw CellFailure("no proxy in front of the replicas: there is no pool to take one out of");
    return *proxy_;
  }
  ServerUnderTest& replica_;
  const std::unique_ptr<ProxyProcess>& proxy_;
  const netem::Host& host_;
  int k_;
  process::CommandLog& log_;
};

}  // namespace

Ledger union_of(const std::vector<Ledger>& ledgers) {
  Ledger all;
  for (const Ledger& l : ledgers) {
    for_each_count(l, [&](uint32_t client, uint32_t seq, uint32_t n) {
      for (uint32_t i = 0; i < n; ++i) all.record(client, seq);
    });
    all.add_unrecorded(l.unrecorded());
  }
  return all;
}

void add_replica_figures(const std::vector<Ledger>& ledgers, PathFigures& figures) {
  figures.executions.assign(ledgers.size(), 0);
  // (client, seq) -> executions on each replica.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> where;
  for (size_t k = 0; k < ledgers.size(); ++k)
    for_each_count(ledgers[k], [&](uint32_t client, uint32_t seq, uint32_t n) {
      figures.executions[k] += n;
      auto& per = where[{client, seq}];
      per.resize(ledgers.size());
      per[k] = n;
    });
  for (const auto& [call, per] : where) {
    uint32_t on = 0, total = 0, most = 0;
    for (uint32_t n : per) {
      on += n > 0;
      total += n;
      most = std::max(most, n);
    }
    if (on >= 2) ++figures.calls_on_several;
    figures.extra_elsewhere += total - most;
  }
}

PathServers::PathServers(const CellConfig& cell, const PathRow& path, const netem::PathTopology& topology,
                         const CellFiles& files, const ProcessPlacement& cpus, process::CommandLog& log)
    : path_(path), topology_(topology) {
  const netem::Host& middle = topology.middle();
  ServerStart how;
  how.fixed_port = true;  // one port on every replica, which the proxy's configuration names
  if (cell.at_most_once && cell.at_most_once_shared) {
    process::SpawnOptions spawn;
    spawn.netns = middle.netns;
    spawn.stdout_path = spawn.stderr_path = files.path("store.log");
    store_version_ = redis_version(log);
    // Started per trial as its users start it, its state in memory only:
    // each trial's table begins empty.
    store_ = std::make_unique<ListeningProcess>(
        "redis-server", std::vector<std::string>{kRedisServer, "--port", std::to_string(kStorePort), "--bind", "0.0.0.0",
                                                 "--protected-mode", "no", "--save", "", "--appendonly", "no",
                                                 "--daemonize", "no"},
        spawn, kStorePort, false, files.path("store.log"), log);
    how.extra_args = {"--at-most-once-shared", fmt::format("{}:{}", middle.address, kStorePort)};
  }
  for (int k = 1; k <= topology.replica_count(); ++k) {
    replica_files_.push_back(CellFiles{files.path(fmt::format("replica-{}", k))});
    ::mkdir(replica_files_.back().dir.c_str(), 0755);
    replicas_.push_back(
        std::make_unique<ServerUnderTest>(cell, topology.replica(k), replica_files_.back(), cpus, log, how));
  }
  for (int k = 1; k <= topology.replica_count(); ++k)
    controls_.push_back(std::make_unique<ReplicaControl>(*replicas_[k - 1], proxy_, topology.replica(k), k, log));
  if (!path.proxy) return;
  ProxyConfigInput in;
  for (int k = 1; k <= topology.replica_count(); ++k) in.replica_addrs.push_back(topology.replica(k).address);
  std::string first = replicas_.front()->endpoint();
  in.replica_port = std::stoi(first.substr(first.rfind(':') + 1));
  // The proxy's configuration names one port for every replica: a replica
  // that had to take another (its first choice was in use in its
  // namespace) would be sent nothing, so the trial stops here instead.
  for (const auto& r : replicas_) {
    std::string e = r->endpoint();
    if (std::stoi(e.substr(e.rfind(':') + 1)) != in.replica_port)
      throw CellFailure(fmt::format("replica at {} listens on another port than replica 1 ({}): the proxy's "
                                    "configuration names one port for all; run `rpclab clean-net` and try again",
                                    e, in.replica_port));
  }
  proxy_ = std::make_unique<ProxyProcess>(path, carriage_of(*find_transport(cell.transport)), middle, in, files, log);
}

PathServers::~PathServers() = default;

std::vector<netem::ServerControl*> PathServers::controls() {
  std::vector<netem::ServerControl*> out;
  for (auto& c : controls_) out.push_back(c.get());
  return out;
}

std::string PathServers::endpoint() const {
  if (proxy_) return proxy_->endpoint();
  if (!path_.client_balances) return replicas_.front()->endpoint();
  std::string all;
  for (const auto& r : replicas_) all += (all.empty() ? "" : ",") + r->endpoint();
  return all;
}

std::optional<nlohmann::json> PathServers::stats() {
  nlohmann::json sum = nlohmann::json::object();
  for (auto& r : replicas_) {
    std::optional<nlohmann::json> one = r->stats();
    if (!one) return std::nullopt;
    // not a record: the server's stats file (docs/results-format.md)
    for (const auto& [key, value] : one->items()) {
      if (value.is_number() && sum.contains(key) && sum[key].is_number())
        sum[key] = sum[key].get<double>() + value.get<double>();
      else if (!sum.contains(key))
        sum[key] = value;
    }
  }
  return sum;
}

std::optional<double> PathServers::proxy_cpu_us() const {
  if (!proxy_) return std::nullopt;
  return proxy_->cpu_us();
}

void PathServers::check_alive() {
  if (store_) store_->check_alive();
  for (auto& r : replicas_) r->check_alive();
  if (proxy_) proxy_->check_alive();
}

Ledger PathServers::stop_and_read_ledger(const CellFiles&) {
  if (proxy_) proxy_->stop();  // no request reaches a replica after this
  ledgers_.clear();
  for (size_t k = 0; k < replicas_.size(); ++k) ledgers_.push_back(replicas_[k]->stop_and_read_ledger(replica_files_[k]));
  if (store_) store_->stop();
  return union_of(ledgers_);
}

void PathServers::describe(TrialRecord& trial) const {
  trial.dependability.topology_place = topology_.place();
  PathFigures p;
  p.path = std::string(path_.name);
  p.proxy = proxy_ ? proxy_->version() : "";
  p.proxy_setting = std::string(path_.setting);
  p.replicas = topology_.replica_count();
  if (store_) p.store = fmt::format("{} at {}:{}", store_version_, topology_.middle().address, kStorePort);
  if (proxy_) p.config = proxy_->config_file();
  trial.dependability.path = p;
}

}  // namespace rpclab::harness

namespace rpclab::harness {
namespace {

// Which connection a stream request came on, as ReplicaExecution keeps it:
// the server's number for it where the transport tells (with the server
// start, as numbers begin again at 1), else its peer's address and port
// (xmlrpc's Abyss gives only these; a live connection's port is its own).
uint64_t connection_of(const journal::Record& r) {
  if (r.known & journal::kKnowsConnection) return uint64_t{r.start} << 32 | r.connection;
  if (r.known & journal::kKnowsPeer) return uint64_t{1} << 63 | uint64_t{r.peer_ipv4} << 16 | r.peer_port;
  return 0;
}

// Replica k's executed NEXTs that a client recorded, with their arrival stamps.
void add_executions(int k, const std::string& journal, const std::set<std::pair<uint32_t, uint32_t>>& recorded,
                    std::vector<ReplicaExecution>& out) {
  for (const journal::Record& r : read_journal_records(journal)) {
    if (r.kind != static_cast<uint8_t>(journal::RecordKind::kExecuted) || !recorded.count({r.client_id, r.seq}))
      continue;
    out.push_back({k, r.client_id, r.seq, r.realtime_ns, r.attempt, r.request_id, connection_of(r)});
  }
}

}  // namespace

bool PathServers::explain(const CellConfig& cell, const std::vector<CallRecord>& records, uint64_t extra_executions,
                          TrialRecord& trial) {
  const TransportRow* row = find_transport(cell.transport);
  PathCausesInput in;
  std::set<std::pair<uint32_t, uint32_t>> recorded = recorded_calls(records);
  try {
    for (int k = 1; k <= static_cast<int>(replica_files_.size()); ++k)
      add_executions(k, journal_in(replica_files_[k - 1].dir), recorded, in.executions);
  } catch (const std::exception& e) {
    throw CellFailure(std::string("cannot read a replica's journal: ") + e.what());
  }
  in.app_attempts = app_attempts(records);
  if (proxy_) in.proxy_log = read_proxy_log(proxy_->log_path());
  in.client_balances = path_.client_balances;
  in.datagram = row && row->datagram();
  in.retransmits = row && row->traits.retransmits;
  in.resends_on_new_connection = row && !row->datagram() && row->library_retry.kind == LibraryRetry::kAlwaysOn;
  in.link_duplicates = cell.faults.dup_pct > 0;
  PathCauses a = attribute_path(in);
  if (a.extra_executions != extra_executions)
    throw CellFailure(fmt::format("the replicas' journals hold {} extra executions, the join {}", a.extra_executions,
                                  extra_executions));
  CausesRecord causes;
  causes.counts = a.counts;
  causes.capture = "none: the path's causes come from the replicas' journals and the proxy's log";
  causes.capture_packets = MaybeNull<uint64_t>::null();
  causes.capture_drops = MaybeNull<uint64_t>::null();
  trial.dependability.causes = causes;

  PathFigures& p = *trial.dependability.path;
  add_replica_figures(ledgers_, p);
  if (in.proxy_log.has_requests()) {
    p.proxy_requests = in.proxy_log.requests.size();
    p.proxy_retried = in.proxy_log.retried();
  } else {
    p.proxy_requests = p.proxy_retried = MaybeNull<uint64_t>::null();
  }
  return true;
}

}  // namespace rpclab::harness
