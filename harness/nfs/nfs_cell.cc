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
#include "harness/nfs/nfs_server.h"
#include "harness/nfs/nfs_classes.h"
#include "harness/placement/placement.h"
#include "harness/record/trial_record.h"
#include "netem/config/backend_choice.h"
#include "netem/config/fault_config.h"
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

}  // namespace

NfsTrial run_nfs_cell(const NfsCellOptions& o) {
  if (::geteuid() != 0) throw std::runtime_error("an NFS cell needs root (namespaces, nftables, the NFS server)");
  const NfsServerRow& server_row = nfs_server(o.server);
  if (std::string why = server_row.missing(); !why.empty()) throw std::runtime_error(why);
  if (!o.drc && !server_row.drc_switch) throw std::runtime_error(o.server + "'s reply cache cannot be turned off");
  std::filesystem::create_directories(o.out_dir);
  std::string out = std::filesystem::absolute(o.out_dir).string();
  process::CommandLog log(out + "/commands.log");
  netem::remove_stale_namespaces(log);
  netem::Choice choice = netem::choose_backend(o.faults_backend, o.faults, netem::probe_capabilities());
  auto topology = netem::Topology::create(netem::TopologyKind::kTwoHost, log);
  CellFiles files{out};
  Link link(choice, netem::make_backend(choice.kind, *topology, log));
  link.apply(o.faults, files);

  NfsServerOptions server_options{topology->server().netns, topology->server().address, topology->client().netns,
                                  out + "/server", o.drc};
  std::unique_ptr<NfsServer> server_ptr = server_row.start(server_options, log);
  NfsServer& server = *server_ptr;
  nlohmann::json counters_before = server.counters();

  std::string client = o.client_program.empty() ? program_dir() + "/rpclab-nfs-client" : o.client_program;
  auto clients_start = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<process::ChildProcess>> clients;
  for (uint32_t k = 1; k <= o.clients; ++k) {
    std::string record = out + "/client-" + std::to_string(k) + ".jsonl";
    std::vector<std::string> argv = {client, "--server", topology->server().address,
                                     "--transport", o.transport, "--export", server.mount_path(),
                                     "--client-id", std::to_string(k), "--count", std::to_string(o.count),
                                     "--ops", o.ops, "--timeout-ms", std::to_string(o.timeout_ms),
                                     "--retransmit-ms", std::to_string(o.retransmit_ms), "--record", record};
    process::SpawnOptions spawn;
    spawn.netns = topology->client().netns;
    spawn.stderr_path = out + "/client-" + std::to_string(k) + ".err";
    clients.push_back(std::make_unique<process::ChildProcess>(argv, spawn, log));
  }
  // Each call ends within its timeout, so the clients end within this.
  auto limit = std::chrono::milliseconds(static_cast<int64_t>(o.count) * 8 * o.timeout_ms + 30000);
  NfsTrial trial;
  trial.server = server_row.name;
  trial.told.emplace();
  trial.classes.emplace();
  trial.counts.emplace();
  trial.client_exits.emplace();
  for (uint32_t k = 1; k <= o.clients; ++k) {
    auto status = clients[k - 1]->wait_for(limit);
    int stopped = status ? *status : clients[k - 1]->stop(std::chrono::seconds(1));
    trial.client_exits->push_back(process::describe_wait_status(stopped));
  }
  trial.client_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - clients_start).count();
  std::set<std::string> names = names_in(server.export_dir());
  nlohmann::json counters_after = server.counters();
  for (uint32_t k = 1; k <= o.clients; ++k) {
    std::string record_path = out + "/client-" + std::to_string(k) + ".jsonl";
    if (!std::filesystem::exists(record_path))
      throw std::runtime_error("client " + std::to_string(k) + " wrote no record (" + (*trial.client_exits)[k - 1] +
                               "; see " + out + "/client-" + std::to_string(k) + ".err)");
    rpclab::nfs::NfsCallRecord record = rpclab::nfs::NfsCallRecord::read_file(record_path);
    for (const auto& c : record.calls) ++(*trial.told)[c.nfs ? *c.nfs : c.rpc];
    NfsClassCounts one = classify(record, names);
    *trial.classes += one;
    trial.counts->clients.push_back(client_counts(k, one));
  }
  trial.server_end = server.state();
  trial.server_counters = nlohmann::json{{"before", counters_before}, {"after", counters_after}};
  trial.faults = link.measured(o.faults, files);
  nlohmann::json options = {{"server", o.server}, {"transport", o.transport}, {"drc", o.drc},
                            {"faults", o.faults}, {"clients", o.clients}, {"count", o.count},
                            {"ops", o.ops}, {"timeout_ms", o.timeout_ms},
                            {"retransmit_ms", o.transport == "udp" ? nlohmann::json(o.retransmit_ms) : nlohmann::json()}};
  TrialRecord as_record;
  as_record.experiment = "nfs";
  as_record.nfs = trial;
  nlohmann::json measured = per_trial_json(as_record);
  write_file_atomically(out + "/cell.json", nlohmann::json{{"options", options}, {"measured", measured}}.dump(2) + "\n");
  return trial;
}

}  // namespace rpclab::harness::nfs
