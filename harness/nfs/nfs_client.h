// An NFS client is a row in a table (nfs_clients()), as a server is
// (nfs_server.h): its name as records say it, which NFS versions and
// transports it speaks, whether it needs a user-mode-linux guest (the
// kernel client: this host's kernel has no NFS client modules), and how
// one client process of a cell is run. The cell (nfs_cell.cc) asks the row
// for the command and never compares a client's name.
//
//   rpclab  rpclab-nfs-client: rpcgen stubs over libtirpc (clnt_dg, clnt_vc), NFSv3
//   kernel  Linux's NFS client in the guest: a private mount namespace in the
//           client's network namespace, `mount -t nfs -o vers=3|4.1,proto=tcp,
//           timeo=T,retrans=R,soft|hard[,noac]`, rpclab-nfs-fsops on the mount, unmount
//   libnfs  rpclab-nfs-libnfs: libnfs 4.0 (NFSv3 over TCP), which resends every
//           outstanding request with its xid after a reconnect
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/nfs/nfs_server.h"

namespace rpclab::harness::nfs {

// One client process of a cell: what the row needs to make its command.
struct NfsClientRun {
  std::string program;        // the row's program (NfsClientRow::program), absolute
  std::string server_address;
  std::string export_path;    // the server's mount path (NfsServer::mount_path)
  std::string version = "3";  // "3" | "4.1"
  std::string transport = "udp";
  uint32_t client_id = 1;
  uint32_t count = 1;
  uint32_t warmup = 0;        // steps made first and not recorded (the workload's --warmup)
  std::string ops = "mkdir";
  int timeout_ms = 5000;      // a call's whole time (the kernel row: timeo x retrans)
  int retransmit_ms = 1000;   // UDP's retransmit interval; the kernel row's timeo
  bool hard = false;          // the kernel row: a hard mount (retries for ever) rather than soft
  // The kernel row: mount with noac, so stat(2) (GETATTR) goes to the
  // server every time instead of to the client's attribute cache.
  bool no_attribute_cache = false;
  std::string record_path;
  std::string work_dir;       // the cell's folder: the kernel row's mount point is made there
  // More flags for the workload program (rpclab-nfs-client's --raw-clnt-dg,
  // the restart event's step gate); a row whose program takes none refuses them.
  std::vector<std::string> extra_args;
};

struct NfsClientCommand {
  std::vector<std::string> argv;  // run in the client's network namespace
  std::string mount_options;      // the kernel row's `mount -o`; "" for a row that does not mount
};

struct NfsClientRow {
  std::string name;                     // "rpclab", "kernel": the record's `nfs_client`
  std::string help;                     // one line for --help and the docs
  std::string program;                  // its workload program, beside rpclab's programs
  std::vector<std::string> speaks;      // the experiment's transports: "nfs3-udp", "nfs3-tcp", "nfs4.1-tcp"
  bool in_guest = false;                // runs inside the user-mode-linux guest: only with a server there
  std::vector<std::string> guest_modules;  // what that guest loads for it
  std::function<std::string()> missing;    // why it cannot run here; "" when it can
  std::function<NfsClientCommand(const NfsClientRun&)> command;
  // Every call the workload records is an RPC the server answered (no
  // cache in the client): rpclab's. The kernel client's system calls may be
  // answered from its caches, so only a server's own counter shows them.
  bool every_call_on_wire = false;
  // It waits at a step's gate (src/nfs/step_gate.h: --gate-step,
  // --gate-fifo), so the restart event strikes a chosen step; a client
  // without one is struck at the call in flight (restart_event.h).
  bool step_gate = false;
};

const std::vector<NfsClientRow>& nfs_clients();
// The row named `name`; throws std::invalid_argument naming the rows.
const NfsClientRow& nfs_client(const std::string& name);
// Why `client` cannot run against `server` ("" when it can): a client that
// needs the guest runs only with a server that runs there.
std::string client_server_mismatch(const NfsClientRow& client, const NfsServerRow& server);
// Why `client` cannot speak NFS `version` over `transport` ("" when it can).
std::string client_speaks_mismatch(const NfsClientRow& client, const std::string& version, const std::string& transport);
// "nfs3-udp" and "3", "udp"; "nfs4.1-tcp" and "4.1", "tcp".
std::string nfs_transport_name(const std::string& version, const std::string& transport);

}  // namespace rpclab::harness::nfs
