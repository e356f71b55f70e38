// rpclab-nfs-cell: one NFS cell end to end (harness/nfs/nfs_cell.h), as
// root; prints the cell's result as JSON and writes it to OUT/cell.json.
//   rpclab-nfs-cell --transport udp --drc off --dup-pct 100 --count 200 --out /tmp/nfs-cell
//   rpclab-nfs-cell --drc off --dup-pct 100 --ops create-guarded,link,rename --count 20 --out /tmp/nfs-ops
//   rpclab-nfs-cell --server knfsd --transport udp --loss-pct 30 --count 20 --out /tmp/knfsd-cell
//   rpclab-nfs-cell --server knfsd --count 10 --restart-at 5 --timeout-ms 30000 --out /tmp/knfsd-restart
//   rpclab-nfs-cell --server knfsd --client kernel --nfs-version 4.1 --transport tcp --count 20 --out /tmp/kc
//   rpclab-nfs-cell --client libnfs --transport tcp --count 20 --event 'reset at=5ms for=100ms every=300ms' --out /tmp/r
//   rpclab-nfs-cell --speed --ops getattr,mkdir --warmup 20 --count 200 --transport tcp --out /tmp/nfs-speed
// A row that runs in a user-mode-linux guest (knfsd) boots one and runs this
// program there with the same flags and --in-guest; cell.json comes back
// through the --out folder (the guest sees the host's /).
#include <iostream>

#include "common/atomic_file.h"
#include "common/cli_support.h"
#include "common/signal_watcher.h"
#include "harness/nfs/nfs_cell.h"
#include "netem/config/fault_events.h"
#include "nfs/nfs_workload.h"

int main(int argc, char** argv) {
  using namespace rpclab;
  // Before any thread starts. A SIGTERM or Ctrl-C no longer kills the cell
  // where it stands, leaving its namespaces, its server and rpcbind: the
  // cell runs to its end (its clients are bounded by --count) and removes
  // them, then exits with the signal's status.
  SignalWatcher signals;
  CLI::App app{"one NFS cell: an NFS server in a namespace, NFS clients across a faulty link, the classes",
               "rpclab-nfs-cell"};
  add_version_flags(app);
  harness::nfs::NfsCellOptions o;
  std::string drc = "on";
  double dup_pct = 0, loss_pct = 0;
  app.add_option("--server", o.server, "an NFS server row (nfs-ganesha, ...)")->capture_default_str();
  app.add_option("--client", o.client, "an NFS client row (rpclab, kernel, libnfs)")->capture_default_str();
  app.add_option("--nfs-version", o.version, "the NFS version: 3, or 4.1 (the kernel client)")
      ->check(CLI::IsMember({"3", "4.1"}))->capture_default_str();
  app.add_flag("--hard-mount", o.hard_mount, "a client that mounts (kernel): hard rather than soft");
  app.add_option("--transport", o.transport, "udp or tcp")->check(CLI::IsMember({"udp", "tcp"}))->capture_default_str();
  app.add_option("--drc", drc, "the server's duplicate request cache")->check(CLI::IsMember({"on", "off"}))->capture_default_str();
  app.add_option("--dup-pct", dup_pct, "requests duplicated on the way to the server")->check(in_range(0.0, 100.0));
  app.add_option("--loss-pct", loss_pct, "replies lost on the way to the client (the request is retransmitted)")->check(in_range(0.0, 100.0));
  app.add_option("--clients", o.clients, "client processes")->check(in_range<uint32_t>(1, 64))->capture_default_str();
  app.add_option("--count", o.count, "steps per client")->check(in_range<uint32_t>(1, 1000000))->capture_default_str();
  app.add_option("--ops", o.ops, "operations per step, comma-separated: " + rpclab::nfs::known_ops_text())
      ->capture_default_str();
  app.add_option("--timeout-ms", o.timeout_ms, "a call's whole time")->check(in_range(1, 600000))->capture_default_str();
  app.add_option("--retransmit-ms", o.retransmit_ms, "UDP retransmit interval")->check(in_range(1, 600000))->capture_default_str();
  app.add_flag("--raw-clnt-dg", o.raw_clnt_dg,
               "UDP: the clients leave libtirpc's handling of stale replies as it is (rpclab-nfs-client --raw-clnt-dg)");
  app.add_flag("--pcap", o.pcap, "capture both ends of the link to OUT/client.pcap and OUT/server.pcap (tcpdump, in each end's namespace)");
  app.add_option("--out", o.out_dir, "the cell's folder")->required();
  app.add_option("--client-program", o.client_program, "the client row's program (default: the row's program, rpclab-nfs-client, rpclab-nfs-fsops or rpclab-nfs-libnfs, beside this program)");
  app.add_flag("--restart-check", o.restart_check,
               "after the workload, restart the server in place and read its counters again");
  app.add_option("--restart-at", o.restart_at,
                 "client 1's step at which the server is restarted between the call's execution and its "
                 "retransmission (replies dropped meanwhile; harness/nfs/restart_event.h); a client without a step gate "
                 "(kernel, libnfs) is struck at its call in flight once the server ran the steps before; 0: none")
      ->check(in_range<uint32_t>(0, 1000000));
  std::vector<std::string> events;
  app.add_option("--event", events, "a timed event of the link (repeatable), as a profile's `event =` line: "
                 "'reset at=100ms for=300ms every=1s' (netem/config/fault_events.h)");
  app.add_flag("--speed", o.speed, "the speed view: each operation of --ops on its own, one after the other, "
               "its calls timed (harness/nfs/nfs_speed.h)");
  app.add_option("--warmup", o.warmup, "steps each client makes before its recorded ones, not recorded")
      ->check(in_range<uint32_t>(0, 1000000));
  app.add_option("--guest-timeout", o.guest_timeout_s, "a guest row: seconds before the guest is killed (0: from --count)")
      ->check(in_range(0, 86400));
  // Set by the host-side cell on the command it runs inside the guest.
  app.add_flag("--in-guest", o.in_guest, "")->group("");
  parse_or_exit(app, argc, argv);
  try {
    rpclab::nfs::parse_ops(o.ops);
  } catch (const std::invalid_argument& e) {
    std::cerr << "rpclab-nfs-cell: --ops: " << e.what() << "\n";
    return kExitUsage;
  }
  try {
    for (const std::string& e : events) o.faults.events.push_back(netem::parse_event(e));
    netem::validate_events(o.faults.events);
  } catch (const std::exception& e) {
    std::cerr << "rpclab-nfs-cell: --event: " << e.what() << "\n";
    return kExitUsage;
  }
  o.drc = drc == "on";
  o.faults.dup_pct = dup_pct;
  o.faults.loss_pct = loss_pct;
  // Duplicates matter on the way to the server, losses on the way back.
  o.faults.direction = loss_pct > 0 && dup_pct > 0 ? netem::Direction::kBoth
                       : loss_pct > 0             ? netem::Direction::kToClient
                                                  : netem::Direction::kToServer;
  try {
    harness::nfs::run_nfs_cell(o);
    std::cout << read_whole_file(o.out_dir + "/cell.json");
  } catch (const std::exception& e) {
    std::cerr << "rpclab-nfs-cell: " << e.what() << "\n";
    return signals.stop_requested() ? 128 + signals.stop_signal() : kExitSetup;
  }
  if (signals.stop_requested()) {
    std::cerr << "rpclab-nfs-cell: stopped by signal " << signals.stop_signal()
              << ": the cell ran to its end and removed what it made; its result is in " << o.out_dir
              << "/cell.json\n";
    return 128 + signals.stop_signal();
  }
  return kExitOk;
}
