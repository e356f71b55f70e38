#include "harness/nfs/nfs_cell.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include "common/atomic_file.h"
#include "common/install_paths.h"
#include "harness/nfs/client_pcap.h"
#include "harness/nfs/nfs_server.h"
#include "harness/nfs/nfs_classes.h"
#include "netem/faults/backend_factory.h"
#include "netem/topology/topology.h"
#include "nfs/nfs_call_record.h"
#include "process/child_process.h"

namespace rpclab::harness::nfs {

namespace {

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

nlohmann::json direction_json(const netem::DirectionCounters& d) {
  return {{"offered", d.offered}, {"duplicated", d.duplicated}, {"dropped", d.dropped}, {"delivered", d.delivered}};
}

}  // namespace

nlohmann::json run_nfs_cell(const NfsCellOptions& o) {
  if (::geteuid() != 0) throw std::runtime_error("an NFS cell needs root (namespaces, nftables, the NFS server)");
  const NfsServerRow& server_row = nfs_server(o.server);
  if (std::string why = server_row.missing(); !why.empty()) throw std::runtime_error(why);
  if (!o.drc && !server_row.drc_switch) throw std::runtime_error(o.server + "'s reply cache cannot be turned off");
  if (o.pcap)
    if (std::string why = tcpdump_missing(); !why.empty()) throw std::runtime_error("--pcap: " + why);
  std::filesystem::create_directories(o.out_dir);
  std::string out = std::filesystem::absolute(o.out_dir).string();
  process::CommandLog log(out + "/commands.log");
  netem::remove_stale_namespaces(log);
  auto topology = netem::Topology::create(netem::TopologyKind::kTwoHost, log);
  std::unique_ptr<netem::FaultBackend> faults = netem::make_backend(netem::BackendKind::kNftables, *topology, log);
  netem::FaultSpec spec;
  spec.dup_pct = o.dup_pct;
  spec.loss_pct = o.loss_pct;
  // Duplicates matter on the way to the server, losses on the way back
  // (the reply lost, the request retransmitted): nftables puts dup on the
  // sender's egress and loss on the receiver's ingress, per direction.
  spec.direction = o.loss_pct > 0 ? netem::Direction::kBoth : netem::Direction::kToServer;
  faults->apply(spec);
  // Before the server, so MOUNT is in it too; declared after the topology,
  // so it ends before the namespaces go.
  std::unique_ptr<ClientPcap> pcap;
  if (o.pcap) pcap = std::make_unique<ClientPcap>(topology->client(), out + "/client.pcap", log);

  NfsServerOptions server_options{topology->server().netns, topology->server().address, topology->client().netns,
                                  out + "/server", o.drc};
  std::unique_ptr<NfsServer> server_ptr = server_row.start(server_options, log);
  NfsServer& server = *server_ptr;
  nlohmann::json counters_before = server.counters();

  std::string client = o.client_program.empty() ? program_dir() + "/rpclab-nfs-client" : o.client_program;
  std::vector<std::unique_ptr<process::ChildProcess>> clients;
  for (uint32_t k = 1; k <= o.clients; ++k) {
    std::string record = out + "/client-" + std::to_string(k) + ".jsonl";
    std::vector<std::string> argv = {client, "--server", topology->server().address,
                                     "--transport", o.transport, "--export", server.mount_path(),
                                     "--client-id", std::to_string(k), "--count", std::to_string(o.count),
                                     "--ops", o.ops, "--timeout-ms", std::to_string(o.timeout_ms),
                                     "--retransmit-ms", std::to_string(o.retransmit_ms), "--record", record};
    if (o.raw_clnt_dg) argv.push_back("--raw-clnt-dg");
    process::SpawnOptions spawn;
    spawn.netns = topology->client().netns;
    spawn.stderr_path = out + "/client-" + std::to_string(k) + ".err";
    clients.push_back(std::make_unique<process::ChildProcess>(argv, spawn, log));
  }
  // Each call ends within its timeout, so the clients end within this.
  auto limit = std::chrono::milliseconds(static_cast<int64_t>(o.count) * 8 * o.timeout_ms + 30000);
  std::map<std::string, uint64_t> told;
  NfsClassCounts classes;
  nlohmann::json client_exits = nlohmann::json::array();
  for (uint32_t k = 1; k <= o.clients; ++k) {
    auto status = clients[k - 1]->wait_for(limit);
    int stopped = status ? *status : clients[k - 1]->stop(std::chrono::seconds(1));
    client_exits.push_back(process::describe_wait_status(stopped));
  }
  nlohmann::json pcap_json;
  if (pcap) pcap_json = {{"file", pcap->path()}, {"tcpdump", pcap->stop()}};
  std::set<std::string> names = names_in(server.export_dir());
  nlohmann::json counters_after = server.counters();
  for (uint32_t k = 1; k <= o.clients; ++k) {
    std::string record_path = out + "/client-" + std::to_string(k) + ".jsonl";
    if (!std::filesystem::exists(record_path))
      throw std::runtime_error("client " + std::to_string(k) + " wrote no record (" + client_exits[k - 1].get<std::string>() +
                               "; see " + out + "/client-" + std::to_string(k) + ".err)");
    rpclab::nfs::NfsCallRecord record = rpclab::nfs::NfsCallRecord::read_file(record_path);
    for (const auto& c : record.calls) ++told[c.nfs ? *c.nfs : c.rpc];
    NfsClassCounts one = classify(record, names);
    classes.calls += one.calls;
    classes.correct += one.correct;
    classes.replayed_told_failure += one.replayed_told_failure;
    classes.lost += one.lost;
    classes.indeterminate += one.indeterminate;
    classes.clean_failure += one.clean_failure;
    classes.not_judged += one.not_judged;
  }
  netem::LinkCounters link = faults->read_counters();
  nlohmann::json result = {
      {"server", server_row.name}, {"version", 3}, {"transport", o.transport}, {"drc", o.drc},
      {"dup_pct", o.dup_pct}, {"loss_pct", o.loss_pct}, {"clients", o.clients}, {"count", o.count},
      {"ops", o.ops}, {"timeout_ms", o.timeout_ms},
      {"retransmit_ms", o.transport == "udp" ? nlohmann::json(o.retransmit_ms) : nlohmann::json()},
      {"clnt_dg", o.transport == "udp" ? nlohmann::json(o.raw_clnt_dg ? "raw" : "guarded") : nlohmann::json()},
      {"pcap", pcap_json},
      {"classes", classes}, {"told", told}, {"client_exits", client_exits},
      {"server_end", server.state()},
      {"server_counters", {{"before", counters_before}, {"after", counters_after}}},
      {"link", {{"source", link.source}, {"to_server", direction_json(link.to_server)},
                {"to_client", direction_json(link.to_client)}}}};
  write_file_atomically(out + "/cell.json", result.dump(2) + "\n");
  return result;
}

}  // namespace rpclab::harness::nfs
