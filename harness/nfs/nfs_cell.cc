#include "harness/nfs/nfs_cell.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/install_paths.h"
#include "harness/nfs/client_pcap.h"
#include "harness/nfs/nfs_client.h"
#include "harness/nfs/nfs_server.h"
#include "harness/nfs/nfs_classes.h"
#include "harness/nfs/nfs_speed.h"
#include "harness/nfs/restart_event.h"
#include "harness/nfs/server_ready.h"
#include "harness/placement/cell_events.h"
#include "harness/placement/placement.h"
#include "harness/record/trial_record.h"
#include "netem/config/backend_choice.h"
#include "netem/config/fault_config.h"
#include "netem/config/fault_events.h"
#include "netem/faults/backend_factory.h"
#include "netem/topology/topology.h"
#include "netem/topology/uml_guest.h"
#include "nfs/nfs_call_record.h"
#include "process/child_process.h"

namespace rpclab::harness::nfs {

namespace {

bool resets(const netem::FaultSpec& spec) {
  return std::any_of(spec.events.begin(), spec.events.end(),
                     [](const netem::FaultEvent& e) { return e.kind && std::string(e.kind->name) == "reset"; });
}

// An event as rpclab-nfs-cell's --event reads it (netem::parse_event).
std::string event_flag(const netem::FaultEvent& e) {
  std::string s = fmt::format("{} at={}ms", e.kind->name, e.at_ms);
  if (e.for_ms) s += fmt::format(" for={}ms", e.for_ms);
  if (e.every_ms) s += fmt::format(" every={}ms", *e.every_ms);
  if (e.jitter_ms) s += fmt::format(" jitter={}ms", e.jitter_ms);
  return s;
}

// Why the trial measured nothing of its events: one that never happened
// while the calls ran (CellEvents::not_met), or resets that struck no
// connection (resets_seen: no socket closed, no segment answered).
std::optional<std::string> events_not_met(const CellEvents& events, const netem::FaultSpec& spec) {
  if (std::string why = events.not_met(); !why.empty()) return why;
  if (!resets(spec)) return std::nullopt;
  uint64_t seen = 0;
  size_t occurrences = 0;
  for (const EventOccurrence& e : events.occurrences())
    if (e.kind == "reset") {
      ++occurrences;
      seen += resets_seen(e);
    }
  if (seen > 0) return std::nullopt;
  return fmt::format("not a measurement: {} reset occurrence(s) struck no connection (no socket closed, no segment "
                     "answered with a reset)", occurrences);
}

// The same cell inside a user-mode-linux guest whose kernel has the row's
// modules: this program (or `cell_program`) again with --in-guest, its
// folder the same (the guest sees the host's / through hostfs). The
// guest runs as pid 1 of a PID namespace that dies with this process, so
// nothing of it outlives the call however it ends (netem/topology/uml_guest.h).
// The modules: the server row's and the client row's.
NfsTrial run_nfs_cell_in_guest(const NfsCellOptions& o, const NfsServerRow& row, const NfsClientRow& client_row,
                               const std::string& out) {
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
  g.modules.insert(g.modules.end(), client_row.guest_modules.begin(), client_row.guest_modules.end());
  // IPv6 (a module in the guest's kernel) loaded before the link is made,
  // so the topology turns it off on both ends as it does on the host.
  // Otherwise rpcbind's IPv6 socket loads it once the veths are up, and
  // their MLD reports and neighbour solicitations cross the faulty link:
  // netem's qdisc counts them, the sender's Ip.OutRequests (offered) does
  // not, and a knfsd loss-only cell read "dup 1.1%" with no duplication
  // configured (issue 42; the wire had 15 ICMPv6 frames and no duplicated
  // IPv4 datagram). With IPv6 off the link carries IPv4 only, the traffic
  // the fault applies to and the counters count.
  g.modules.push_back("ipv6");
  // A reset in the guest is an iptables rule (netem/events/link_events.h).
  if (resets(o.faults)) g.modules.insert(g.modules.end(), {"iptable_filter", "ipt_REJECT"});
  int limit_s = static_cast<int>(static_cast<int64_t>(o.count) * 8 * o.timeout_ms / 1000) + 150;
  g.timeout = std::chrono::seconds(o.guest_timeout_s > 0 ? o.guest_timeout_s : limit_s);
  std::string cell_json = out + "/cell.json";
  std::filesystem::remove(cell_json);
  g.stop = o.stop;
  netem::GuestRun run = netem::run_in_guest(argv, g, log);
  if (!run.completed) throw std::runtime_error("the user-mode-linux guest failed: " + run.failure);
  if (run.exit_code != 0)
    throw std::runtime_error("rpclab-nfs-cell in the guest exited " + std::to_string(run.exit_code) + ": " +
                             read_text(g.stderr_path));
  nlohmann::json result = nlohmann::json::parse(read_text(cell_json));
  result["guest"] = {{"boot_ms", run.boot_ms}, {"total_ms", run.total_ms}, {"console", run.console_path}};
  write_file_atomically(cell_json, result.dump(2) + "\n");
  TrialRecord identity;
  identity.experiment = "nfs";
  const nlohmann::json& measured = result.at("measured");  // not a record: cell.json wraps the trial's section
  return trial_in_cell(measured, identity).nfs;
}

// One run of the cell's clients: the workload's operations, or in a speed
// cell one operation (mounted noac where it needs it), its files tagged
// with the operation's name.
struct ClientsRun {
  std::string ops;
  rpclab::nfs::NfsOp op = rpclab::nfs::NfsOp::kMkdir;  // a speed run's one operation
  std::string tag;                                      // "" or "-getattr"
  bool noac = false;
  std::string record_path(const std::string& out, uint32_t k) const {
    return out + "/client-" + std::to_string(k) + tag + ".jsonl";
  }
  std::string err_path(const std::string& out, uint32_t k) const {
    return out + "/client-" + std::to_string(k) + tag + ".err";
  }
};

std::vector<ClientsRun> clients_runs(const NfsCellOptions& o) {
  if (!o.speed) return {{o.ops, rpclab::nfs::NfsOp::kMkdir, "", false}};
  std::vector<ClientsRun> runs;
  for (rpclab::nfs::NfsOp op : speed_ops(o.ops)) {
    std::string name = rpclab::nfs::op_name(op);
    runs.push_back({name, op, "-" + name, needs_noac(op)});
  }
  return runs;
}

rpclab::nfs::NfsCallRecord read_record(const ClientsRun& r, const std::string& out, uint32_t k,
                                       const std::string& exit) {
  std::string path = r.record_path(out, k);
  if (!std::filesystem::exists(path))
    throw std::runtime_error("client " + std::to_string(k) + " wrote no record (" + exit + "; see " +
                             r.err_path(out, k) + ")");
  return rpclab::nfs::NfsCallRecord::read_file(path);
}

}  // namespace

std::vector<std::string> nfs_cell_flags(const NfsCellOptions& o) {
  std::vector<std::string> f = {"--server", o.server, "--client", o.client, "--nfs-version", o.version,
                                "--transport", o.transport, "--drc", o.drc ? "on" : "off",
                                "--dup-pct", fmt::format("{}", o.faults.dup_pct),
                                "--loss-pct", fmt::format("{}", o.faults.loss_pct),
                                "--clients", std::to_string(o.clients), "--count", std::to_string(o.count),
                                "--ops", o.ops, "--timeout-ms", std::to_string(o.timeout_ms),
                                "--retransmit-ms", std::to_string(o.retransmit_ms), "--out", o.out_dir};
  if (!o.client_program.empty()) f.insert(f.end(), {"--client-program", o.client_program});
  if (o.restart_check) f.push_back("--restart-check");
  if (o.raw_clnt_dg) f.push_back("--raw-clnt-dg");
  if (o.pcap) f.push_back("--pcap");
  if (o.restart_at) f.insert(f.end(), {"--restart-at", std::to_string(o.restart_at)});
  if (o.hard_mount) f.push_back("--hard-mount");
  if (o.speed) f.push_back("--speed");
  for (const netem::FaultEvent& e : o.faults.events) f.insert(f.end(), {"--event", event_flag(e)});
  if (o.warmup) f.insert(f.end(), {"--warmup", std::to_string(o.warmup)});
  return f;
}

NfsTrial run_nfs_cell(const NfsCellOptions& o) {
  if (::geteuid() != 0) throw std::runtime_error("an NFS cell needs root (namespaces, nftables, the NFS server)");
  const NfsServerRow& server_row = nfs_server(o.server);
  if (std::string why = server_row.missing(); !why.empty()) throw std::runtime_error(why);
  if (!o.drc && !server_row.drc_switch) throw std::runtime_error(o.server + "'s reply cache cannot be turned off");
  if (o.pcap)
    if (std::string why = tcpdump_missing(); !why.empty()) throw std::runtime_error("--pcap: " + why);
  const NfsClientRow& client_row = nfs_client(o.client);
  if (std::string why = client_row.missing(); !why.empty()) throw std::runtime_error(why);
  if (std::string why = client_server_mismatch(client_row, server_row); !why.empty()) throw std::runtime_error(why);
  if (std::string why = client_speaks_mismatch(client_row, o.version, o.transport); !why.empty())
    throw std::runtime_error(why);
  std::filesystem::create_directories(o.out_dir);
  std::string out = std::filesystem::absolute(o.out_dir).string();
  if (server_row.in_guest && !o.in_guest) return run_nfs_cell_in_guest(o, server_row, client_row, out);
  process::CommandLog log(out + "/commands.log");
  netem::remove_stale_namespaces(log);
  // --- restart event (restart_event.h): its gate, and a backend that can drop one way.
  std::unique_ptr<RestartEvent> restart;
  netem::FaultSpec choice_spec = o.faults;
  if (!o.faults.events.empty() && (o.restart_at || o.speed))
    throw std::invalid_argument("timed events (" + netem::summary(o.faults) + ") go with neither the restart event "
                                "nor the speed view");
  if (o.restart_at) {
    if (o.restart_at > o.count) throw std::invalid_argument("--restart-at is past the last step");
    if (o.speed) throw std::invalid_argument("a speed cell has no restart event (it measures without faults)");
    // The gate's FIFO on a local tmpfs: in the guest the out folder is
    // hostfs, where a FIFO would block UML's kernel thread, not the client.
    restart = std::make_unique<RestartEvent>(1, o.restart_at, rpclab::nfs::parse_ops(o.ops).front(), o.transport,
                                             o.in_guest ? "/run" : out, client_row.step_gate, o.version);
    netem::FaultEvent as_partition;  // the backend chosen as for a partition: it drops one way the same way
    as_partition.kind = netem::find_event_kind("partition");
    as_partition.for_ms = 1;
    choice_spec.events.push_back(as_partition);
  }
  // --- end restart event
  netem::Choice choice = netem::choose_backend(o.faults_backend, choice_spec, netem::probe_capabilities());
  auto topology = netem::Topology::create(netem::TopologyKind::kTwoHost, log);
  CellFiles files{out};
  Link link(choice, netem::make_backend(choice.kind, *topology, log));
  // Before the server, so MOUNT is in it too; declared after the topology,
  // so it ends before the namespaces go.
  std::unique_ptr<EndPcap> pcap, server_pcap;
  if (o.pcap) {
    pcap = std::make_unique<EndPcap>(topology->client(), out + "/client.pcap", log);
    server_pcap = std::make_unique<EndPcap>(topology->server(), out + "/server.pcap", log);
  }

  NfsServerOptions server_options{topology->server().netns, topology->server().address, topology->client().netns,
                                  out + "/server", o.drc};
  std::unique_ptr<NfsServer> server_ptr = server_row.start(server_options, log);
  NfsServer& server = *server_ptr;
  nlohmann::json counters_before = server.counters();
  // The fault once the server serves: its start and readiness check on a
  // clean link (under 30% loss both ways rpcinfo's own retries outlast the
  // readiness deadline), the workload (MNT included) on the faulty one.
  link.apply(o.faults, files);

  // The clients: each row says how one of its processes runs (nfs_client.h).
  // One run of them does the workload; a speed cell makes one run per
  // operation, one after the other, the server's counters read around each
  // (nfs_speed.h).
  std::vector<ClientsRun> runs = clients_runs(o);
  std::string client_program = o.client_program.empty() ? program_dir() + "/" + client_row.program : o.client_program;
  // Each call ends within its timeout, so the clients end within this.
  auto limit = std::chrono::milliseconds(static_cast<int64_t>(o.count + o.warmup) * 8 * o.timeout_ms + 30000);
  NfsTrial trial;
  trial.server = server_row.name;
  trial.client = client_row.name;
  trial.told.emplace();
  trial.classes.emplace();
  trial.classes_by_op.emplace();
  trial.counts.emplace();
  trial.client_exits.emplace();
  if (o.speed) trial.speed.emplace();
  double wall_s = 0;
  for (const ClientsRun& r : runs) {
    nlohmann::json before = o.speed ? server.counters() : nlohmann::json();
    auto clients_start = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<process::ChildProcess>> clients;
    std::string mount_options;
    for (uint32_t k = 1; k <= o.clients; ++k) {
      NfsClientRun run;
      run.program = std::filesystem::absolute(client_program).string();
      run.server_address = topology->server().address;
      run.export_path = server.mount_path();
      run.version = o.version;
      run.transport = o.transport;
      run.client_id = k;
      run.count = o.count;
      run.warmup = o.warmup;
      run.ops = r.ops;
      run.timeout_ms = o.timeout_ms;
      run.retransmit_ms = o.retransmit_ms;
      run.hard = o.hard_mount;
      run.no_attribute_cache = r.noac;
      run.record_path = r.record_path(out, k);
      run.work_dir = out;
      if (o.raw_clnt_dg) run.extra_args.push_back("--raw-clnt-dg");
      if (restart && k == restart->client())
        for (const auto& arg : restart->client_args()) run.extra_args.push_back(arg);
      NfsClientCommand command = client_row.command(run);
      mount_options = command.mount_options;
      process::SpawnOptions spawn;
      spawn.netns = topology->client().netns;
      spawn.stderr_path = r.err_path(out, k);
      clients.push_back(std::make_unique<process::ChildProcess>(command.argv, spawn, log));
    }
    if (restart) {
      if (!link.events_backend()) throw std::runtime_error("the restart event needs a fault backend (" + choice.reason + ")");
      restart->run(server, *link.events_backend(), *clients[restart->client() - 1], clients_start, std::chrono::seconds(20),
                   counters_before);
    }
    if (!mount_options.empty()) trial.mount_options = mount_options;
    // The spec's timed events (the reset column), polled while the clients
    // run, as the dependability trial's are; the first poll is their start.
    CellEvents events(o.faults, std::nullopt, link.events_backend(), {}, log);
    events.poll();
    auto deadline = clients_start + limit;
    for (uint32_t k = 1; k <= o.clients; ++k) {
      std::optional<int> status;
      while (!status && std::chrono::steady_clock::now() < deadline) {
        events.poll();
        status = clients[k - 1]->wait_for(std::chrono::milliseconds(o.faults.events.empty() ? 200 : 2));
      }
      int stopped = status ? *status : clients[k - 1]->stop(std::chrono::seconds(1));
      trial.client_exits->push_back(process::describe_wait_status(stopped));
    }
    events.finish();
    if (!o.faults.events.empty()) {
      trial.events = events.occurrences();
      if (auto w = events.warnings(); !w.empty()) trial.warnings = w;
      trial.events_not_met = events_not_met(events, o.faults);
    }
    wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - clients_start).count();
    if (!o.speed) continue;
    std::vector<rpclab::nfs::NfsCallRecord> records;
    for (uint32_t k = 1; k <= o.clients; ++k) records.push_back(read_record(r, out, k, trial.client_exits->back()));
    NfsOpSpeed speed = op_speed(r.op, records, uint64_t{o.warmup} * o.clients);
    if (!mount_options.empty()) speed.mount_options = mount_options;
    judge_reached(speed, server.op_count_between(before, server.counters(), o.version, r.op),
                  client_row.every_call_on_wire);
    trial.speed->push_back(speed);
  }
  trial.client_wall_s = wall_s;
  nlohmann::json pcap_json;
  if (pcap) {
    pcap_json = {{"file", pcap->path()}, {"tcpdump", pcap->stop()},
                 {"server", {{"file", server_pcap->path()}, {"tcpdump", server_pcap->stop()}}}};
    // Which CREATE went on the wire (UDP): GUARDED or EXCLUSIVE, as sent.
    if (o.transport == "udp") pcap_json["create_modes"] = create_modes_in(pcap->path());
  }
  // The export's end state, the classes' evidence (in the guest too: the
  // cell runs beside knfsd there), kept in the cell's folder.
  NfsExportListing end = list_export(server.export_dir());
  write_file_atomically(out + "/export.json", nlohmann::json(end).dump(1) + "\n");
  nlohmann::json counters_after = server.counters();
  nlohmann::json counters_restarted;
  if (o.restart_check) {
    server.restart();
    counters_restarted = server.counters();
  }
  for (uint32_t k = 1; k <= o.clients; ++k) {
    RecordClasses one;
    for (const ClientsRun& r : runs) {
      rpclab::nfs::NfsCallRecord record = read_record(r, out, k, (*trial.client_exits)[k - 1]);
      for (const auto& c : record.calls) ++(*trial.told)[c.nfs ? *c.nfs : c.rpc];
      RecordClasses part = classify(record, end);
      one.all += part.all;
      for (const auto& [op, counts] : part.by_op) one.by_op[op] += counts;
      if (restart && k == restart->client()) trial.restart = restart->judged(record, end);
    }
    *trial.classes += one.all;
    for (const auto& [op, counts] : one.by_op) (*trial.classes_by_op)[op] += counts;
    trial.counts->clients.push_back(client_counts(k, one.all));
  }
  trial.server_end = server.state();
  trial.server_counters = nlohmann::json{{"before", counters_before}, {"after", counters_after}};
  trial.reply_cache_hits = server.cache_hits_between(counters_before, counters_after);
  if (o.restart_check) (*trial.server_counters)["after_restart"] = counters_restarted;
  trial.faults = link.measured(o.faults, files);
  nlohmann::json options = {{"server", o.server}, {"client", o.client}, {"version", o.version},
                            {"transport", o.transport}, {"drc", o.drc},
                            {"faults", o.faults}, {"clients", o.clients}, {"count", o.count},
                            {"ops", o.ops}, {"timeout_ms", o.timeout_ms}, {"restart_at", o.restart_at},
                            {"events", o.faults.events},
                            {"speed", o.speed}, {"warmup", o.warmup},
                            {"retransmit_ms", o.transport == "udp" ? nlohmann::json(o.retransmit_ms) : nlohmann::json()},
                            {"clnt_dg", o.transport == "udp" ? nlohmann::json(o.raw_clnt_dg ? "raw" : "guarded") : nlohmann::json()}};
  TrialRecord as_record;
  as_record.experiment = "nfs";
  as_record.nfs = trial;
  nlohmann::json measured = per_trial_json(as_record);
  write_file_atomically(out + "/cell.json", nlohmann::json{{"options", options}, {"measured", measured}, {"pcap", pcap_json}}.dump(2) + "\n");
  return trial;
}

}  // namespace rpclab::harness::nfs
