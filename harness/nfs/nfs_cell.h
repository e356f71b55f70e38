// One NFS cell (one trial of it), end to end: two namespaces joined by a
// veth pair (netem/topology), the cell's faults on the link (the backend
// choose_backend picks: nftables on this kernel, netem where the kernel
// has it; inside a user-mode-linux guest, which has no nftables, tc netem
// on each sender's egress), an NFS server (nfs_server.h) in the server's
// namespace,
// `clients` client processes (a row of nfs_client.h) in the client's, then the classes
// from the records against the export's end state. Everything it made is
// removed when it returns or throws.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/record/nfs_figures.h"
#include "netem/spec/fault_spec.h"

namespace rpclab::harness::nfs {

struct NfsCellOptions {
  std::string server = "nfs-ganesha";  // a row of nfs_servers()
  std::string client = "rpclab";       // a row of nfs_clients() (nfs_client.h)
  std::string version = "3";           // the NFS version: 3 | 4.1 (as the client row speaks it)
  std::string transport = "udp";       // udp | tcp
  bool hard_mount = false;             // a client that mounts (kernel): hard rather than soft
  bool drc = true;                     // the server's duplicate request cache (off: a row with drc_switch)
  // The link's faults. Duplicates matter on the way to the server, losses
  // on the way back (the reply lost, the request retransmitted).
  netem::FaultSpec faults;
  std::string faults_backend = "auto";  // choose_backend's `requested`
  uint32_t clients = 1;
  uint32_t count = 100;                 // steps per client
  std::string ops = "mkdir";
  int timeout_ms = 5000;
  int retransmit_ms = 1000;
  bool raw_clnt_dg = false;             // UDP: rpclab-nfs-client --raw-clnt-dg (no guard against stale replies)
  bool pcap = false;                    // out_dir/client.pcap and server.pcap: both ends of the link (client_pcap.h)
  std::string out_dir;                  // records, server/ (its config, log, export), commands.log, cell.json
  std::string client_program;           // "": the client row's program beside this program
  // After the workload and its counters: restart the server in place
  // (NfsServer::restart) and read its counters again (server_counters.after_restart).
  bool restart_check = false;
  // The restart event (restart_event.h): at client 1's step `restart_at`
  // (0: none) the replies dropped, the server seen to run the step's first
  // call, restarted, the replies let through; the record's `restart`. That
  // call needs a timeout_ms that outlasts the restart (knfsd ~1 s, ganesha ~3 s).
  // A client row without a step gate (kernel, libnfs) is struck at its call
  // in flight once the server has run restart_at - 1 of them.
  uint32_t restart_at = 0;
  // The speed view (nfs_speed.h): each operation of `ops` on its own, one
  // after the other, with its own clients (a mounting client mounts
  // GETATTR's run noac) and the server's counters read around it; each
  // client makes `warmup` unrecorded steps first. The trial's `speed`.
  bool speed = false;
  uint32_t warmup = 0;
  // A row with in_guest: run_nfs_cell boots a user-mode-linux guest that runs
  // `cell_program` with these options and `in_guest` set, and relays its
  // cell.json (plus the guest's boot and total time) and its failure.
  bool in_guest = false;          // this process is that guest's cell
  std::string cell_program;       // "": rpclab-nfs-cell beside this program
  int guest_timeout_s = 0;        // 0: the clients' own limit plus 150 s
  // Set when the run is asked to stop (Ctrl-C, SIGTERM): a guest cell
  // powers its guest off at once instead of waiting for the cell's end.
  const std::atomic<bool>* stop = nullptr;
};

// The flags that give rpclab-nfs-cell these options (without --in-guest).
std::vector<std::string> nfs_cell_flags(const NfsCellOptions& options);

// What the cell measured (also written to out_dir/cell.json with the
// options): the classes summed over clients and per client, what the
// clients were told, the link's faults and counters, how the server ended
// and what it said it ran. Throws std::runtime_error when it cannot be set
// up (not root, the server missing, ...).
NfsTrial run_nfs_cell(const NfsCellOptions& options);

}  // namespace rpclab::harness::nfs
