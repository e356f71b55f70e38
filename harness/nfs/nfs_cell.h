// One NFS cell, end to end: two namespaces joined by a veth pair
// (netem/topology), the fault on the link (nftables: dup on the sender's
// egress, loss on the receiver's ingress; netem/faults), an NFS server
// (nfs_server.h) in the server's namespace, `clients` rpclab-nfs-client processes in the
// client's, then the classes from the records against the export's end
// state. Everything it made is removed when it returns or throws.
#pragma once

#include <cstdint>
#include <string>

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
  bool raw_clnt_dg = false;       // UDP: rpclab-nfs-client --raw-clnt-dg (no guard against stale replies)
  bool pcap = false;              // out_dir/client.pcap: the client's end of the link (client_pcap.h)
  std::string out_dir;            // records, server/ (the server's config, log, export), commands.log, cell.json
  std::string client_program;     // "": rpclab-nfs-client beside this program
};

// The cell's result (also written to out_dir/cell.json): its options, the
// classes summed over clients, the link's counters, how the server ended,
// and what the clients were told, by status. Throws std::runtime_error
// when it cannot be set up (not root, the server missing, ...).
nlohmann::json run_nfs_cell(const NfsCellOptions& options);

}  // namespace rpclab::harness::nfs
