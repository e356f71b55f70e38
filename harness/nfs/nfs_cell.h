// One NFS cell, end to end: two namespaces joined by a veth pair
// (netem/topology), the fault on the link (nftables: dup on the sender's
// egress, loss on the receiver's ingress; inside a user-mode-linux guest,
// which has no nftables, tc netem on each sender's egress; netem/faults), an NFS server
// (nfs_server.h) in the server's namespace, `clients` rpclab-nfs-client processes in the
// client's, then the classes from the records against the export's end
// state. Everything it made is removed when it returns or throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpclab::harness::nfs {

struct NfsCellOptions {
  std::string server = "nfs-ganesha";  // a row of nfs_servers()
  std::string transport = "udp";  // udp | tcp
  bool drc = true;                // the server's duplicate request cache (off: a row with drc_switch)
  double dup_pct = 0;             // requests duplicated on the way to the server (nftables dup)
  double loss_pct = 0;            // replies lost on the way to the client (nftables drop)
  uint32_t clients = 1;
  uint32_t count = 100;           // steps per client
  std::string ops = "mkdir";
  int timeout_ms = 5000;
  int retransmit_ms = 1000;
  std::string out_dir;            // records, server/ (the server's config, log, export), commands.log, cell.json
  std::string client_program;     // "": rpclab-nfs-client beside this program
  // After the workload and its counters: restart the server in place
  // (NfsServer::restart) and read its counters again (server_counters.after_restart).
  bool restart_check = false;
  // A row with in_guest: run_nfs_cell boots a user-mode-linux guest that runs
  // `cell_program` with these options and `in_guest` set, and relays its
  // cell.json (plus the guest's boot and total time) and its failure.
  bool in_guest = false;          // this process is that guest's cell (faults by netem, as the guest has no nftables)
  std::string cell_program;       // "": rpclab-nfs-cell beside this program
  int guest_timeout_s = 0;        // 0: the clients' own limit plus 120 s
};

// The flags that give rpclab-nfs-cell these options (without --in-guest).
std::vector<std::string> nfs_cell_flags(const NfsCellOptions& options);

// The cell's result (also written to out_dir/cell.json): its options, the
// classes summed over clients, the link's counters, how the server ended,
// and what the clients were told, by status. Throws std::runtime_error
// when it cannot be set up (not root, the server missing, ...).
nlohmann::json run_nfs_cell(const NfsCellOptions& options);

}  // namespace rpclab::harness::nfs
