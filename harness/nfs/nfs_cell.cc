#include "harness/nfs/nfs_cell.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/install_paths.h"
#include "harness/nfs/nfs_server.h"
#include "harness/nfs/nfs_classes.h"
#include "harness/nfs/server_ready.h"
#include "netem/faults/backend_factory.h"
#include "netem/topology/topology.h"
#include "netem/topology/uml_guest.h"
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

// The same cell inside a user-mode-linux guest whose kernel has the row's
// modules: this program (or `cell_program`) again with --in-guest, its
// folder the same (the guest sees the host's / through hostfs). The
// guest runs as pid 1 of a PID namespace that dies with this process, so
// nothing of it outlives the call however it ends (netem/topology/uml_guest.h).
nlohmann::json run_nfs_cell_in_guest(const NfsCellOptions& o, const NfsServerRow& row, const std::string& out) {
  process::CommandLog log(out + "/guest-commands.log");
  std::string program = o.cell_program.empty() ? program_dir() + "/rpclab-nfs-cell" : o.cell_program;
  program = std::filesystem::absolute(program).string();
  std::vector<std::string> argv = {program};
  NfsCellOptions inner = o;
  inner.out_dir = out;
  for (const auto& flag : nfs_cell_flags(inner)) argv.push_back(flag);
  argv.push_back("--in-guest");
  netem::GuestOptions g;
  g.work_dir = out + "/guest";
  g.stdout_path = out + "/guest-cell.stdout";
  g.stderr_path = out + "/guest-cell.stderr";
  g.modules = row.guest_modules;
  int limit_s = static_cast<int>(static_cast<int64_t>(o.count) * 8 * o.timeout_ms / 1000) + 150;
  g.timeout = std::chrono::seconds(o.guest_timeout_s > 0 ? o.guest_timeout_s : limit_s);
  std::string cell_json = out + "/cell.json";
  std::filesystem::remove(cell_json);
  netem::GuestRun run = netem::run_in_guest(argv, g, log);
  if (!run.completed) throw std::runtime_error("the user-mode-linux guest failed: " + run.failure);
  if (run.exit_code != 0)
    throw std::runtime_error("rpclab-nfs-cell in the guest exited " + std::to_string(run.exit_code) + ": " +
                             read_text(g.stderr_path));
  nlohmann::json result = nlohmann::json::parse(read_text(cell_json));
  result["guest"] = {{"boot_ms", run.boot_ms}, {"total_ms", run.total_ms}, {"console", run.console_path}};
  write_file_atomically(cell_json, result.dump(2) + "\n");
  return result;
}

}  // namespace

std::vector<std::string> nfs_cell_flags(const NfsCellOptions& o) {
  std::vector<std::string> f = {"--server", o.server, "--transport", o.transport, "--drc", o.drc ? "on" : "off",
                                "--dup-pct", fmt::format("{}", o.dup_pct), "--loss-pct", fmt::format("{}", o.loss_pct),
                                "--clients", std::to_string(o.clients), "--count", std::to_string(o.count),
                                "--ops", o.ops, "--timeout-ms", std::to_string(o.timeout_ms),
                                "--retransmit-ms", std::to_string(o.retransmit_ms), "--out", o.out_dir};
  if (!o.client_program.empty()) f.insert(f.end(), {"--client-program", o.client_program});
  if (o.restart_check) f.push_back("--restart-check");
  return f;
}

nlohmann::json run_nfs_cell(const NfsCellOptions& o) {
  if (::geteuid() != 0) throw std::runtime_error("an NFS cell needs root (namespaces, nftables, the NFS server)");
  const NfsServerRow& server_row = nfs_server(o.server);
  if (std::string why = server_row.missing(); !why.empty()) throw std::runtime_error(why);
  if (!o.drc && !server_row.drc_switch) throw std::runtime_error(o.server + "'s reply cache cannot be turned off");
  std::filesystem::create_directories(o.out_dir);
  std::string out = std::filesystem::absolute(o.out_dir).string();
  if (server_row.in_guest && !o.in_guest) return run_nfs_cell_in_guest(o, server_row, out);
  process::CommandLog log(out + "/commands.log");
  netem::remove_stale_namespaces(log);
  auto topology = netem::Topology::create(netem::TopologyKind::kTwoHost, log);
  netem::BackendKind fault_kind = o.in_guest ? netem::BackendKind::kNetem : netem::BackendKind::kNftables;
  std::unique_ptr<netem::FaultBackend> faults = netem::make_backend(fault_kind, *topology, log);
  netem::FaultSpec spec;
  spec.dup_pct = o.dup_pct;
  spec.loss_pct = o.loss_pct;
  // Duplicates matter on the way to the server, losses on the way back
  // (the reply lost, the request retransmitted): nftables puts dup on the
  // sender's egress and loss on the receiver's ingress, per direction;
  // netem both on the sender's egress.
  spec.direction = o.loss_pct > 0 ? netem::Direction::kBoth : netem::Direction::kToServer;

  NfsServerOptions server_options{topology->server().netns, topology->server().address, topology->client().netns,
                                  out + "/server", o.drc};
  std::unique_ptr<NfsServer> server_ptr = server_row.start(server_options, log);
  NfsServer& server = *server_ptr;
  nlohmann::json counters_before = server.counters();
  // The fault once the server serves: its start and readiness check on a
  // clean link (under 30% loss both ways rpcinfo's own retries outlast the
  // readiness deadline), the workload (MNT included) on the faulty one.
  faults->apply(spec);

  std::string client = o.client_program.empty() ? program_dir() + "/rpclab-nfs-client" : o.client_program;
  std::vector<std::unique_ptr<process::ChildProcess>> clients;
  for (uint32_t k = 1; k <= o.clients; ++k) {
    std::string record = out + "/client-" + std::to_string(k) + ".jsonl";
    std::vector<std::string> argv = {client, "--server", topology->server().address,
                                     "--transport", o.transport, "--export", server.mount_path(),
                                     // The fault is for the workload's calls: the mount over TCP
                                     // recovers from a loss in TCP's time, not clnt_dg's 15 s
                                     // rpcbind retransmit (30 s of setup under 30% loss).
                                     "--mount-transport", "tcp",
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
  std::map<std::string, uint64_t> told;
  NfsClassCounts classes;
  nlohmann::json client_exits = nlohmann::json::array();
  for (uint32_t k = 1; k <= o.clients; ++k) {
    auto status = clients[k - 1]->wait_for(limit);
    int stopped = status ? *status : clients[k - 1]->stop(std::chrono::seconds(1));
    client_exits.push_back(process::describe_wait_status(stopped));
  }
  std::set<std::string> names = names_in(server.export_dir());
  nlohmann::json counters_after = server.counters();
  nlohmann::json counters_restarted;
  if (o.restart_check) {
    server.restart();
    counters_restarted = server.counters();
  }
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
      {"classes", classes}, {"told", told}, {"client_exits", client_exits},
      {"server_end", server.state()},
      {"server_counters", {{"before", counters_before}, {"after", counters_after}}},
      {"fault_backend", o.in_guest ? "netem (in the guest)" : "nftables"},
      {"link", {{"source", link.source}, {"to_server", direction_json(link.to_server)},
                {"to_client", direction_json(link.to_client)}}}};
  if (o.restart_check) result["server_counters"]["after_restart"] = counters_restarted;
  write_file_atomically(out + "/cell.json", result.dump(2) + "\n");
  return result;
}

}  // namespace rpclab::harness::nfs
