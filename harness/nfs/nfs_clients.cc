#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/nfs/named_row.h"
#include "harness/nfs/nfs_client.h"
#include "netem/topology/uml_guest.h"
#include "process/command_log.h"

namespace rpclab::harness::nfs {

namespace {

constexpr const char* kMountNfs = "/sbin/mount.nfs";

std::vector<std::string> workload_flags(const NfsClientRun& r) {
  std::vector<std::string> f = {"--client-id", std::to_string(r.client_id), "--count", std::to_string(r.count),
                                "--ops", r.ops, "--record", r.record_path};
  if (r.warmup) f.insert(f.end(), {"--warmup", std::to_string(r.warmup)});
  return f;
}

NfsClientCommand rpclab_command(const NfsClientRun& r) {
  std::vector<std::string> argv = {r.program, "--server", r.server_address, "--transport", r.transport,
                                   "--export", r.export_path,
                                   // The fault is for the workload's calls: the mount over TCP
                                   // recovers from a loss in TCP's time, not clnt_dg's 15 s
                                   // rpcbind retransmit (30 s of setup under 30% loss).
                                   "--mount-transport", "tcp", "--timeout-ms", std::to_string(r.timeout_ms),
                                   "--retransmit-ms", std::to_string(r.retransmit_ms)};
  for (const auto& f : workload_flags(r)) argv.push_back(f);
  for (const auto& f : r.extra_args) argv.push_back(f);
  return {argv, ""};
}

// libnfs over TCP (its only NFSv3 transport here): its timeout is the
// call's whole time; it reconnects without end (nfs_set_autoreconnect -1),
// resending what was outstanding. MOUNT too goes through libnfs.
NfsClientCommand libnfs_command(const NfsClientRun& r) {
  if (!r.extra_args.empty())
    throw std::runtime_error("the libnfs NFS client takes no " + r.extra_args.front() +
                             " (no raw clnt_dg, no step gate: a restart strikes its call in flight)");
  std::vector<std::string> argv = {r.program, "--server", r.server_address, "--export", r.export_path,
                                   "--timeout-ms", std::to_string(r.timeout_ms), "--autoreconnect", "-1"};
  for (const auto& f : workload_flags(r)) argv.push_back(f);
  return {argv, ""};
}

// timeo (tenths of a second) is the retransmit interval; retrans the
// retransmissions that fit the call's time at that interval (the kernel
// backs off linearly over TCP, so a soft call gives up somewhat later).
// NFSv3 without the lock manager (nolock: no rpc.statd, whose state would
// land on the host's /var/lib/nfs through hostfs), MNT over TCP.
std::string kernel_mount_options(const NfsClientRun& r) {
  int timeo = std::max(1, r.retransmit_ms / 100);
  int retrans = std::max(0, r.timeout_ms / std::max(1, r.retransmit_ms) - 1);
  std::string o = fmt::format("vers={},proto={},timeo={},retrans={},{}", r.version, r.transport, timeo, retrans,
                              r.hard ? "hard" : "soft");
  if (r.version == "3") o += ",nolock,mountproto=tcp";
  if (r.no_attribute_cache) o += ",noac";
  return o;
}

// One shell with a mount namespace of its own (the mount is gone with it
// however it ends): the mount point in the cell's folder, the workload on
// it, then umount(2) alone (-i: no UMNT call to a server a fault may cut
// off). Its exit code is the workload's, or mount's when it fails. The
// mount is setup, not a measured call, and the cell's loss is already on
// the link: an NFSv4.1 mount's session setup under 20% loss failed once
// in a CI run ("mount system call failed", exit 32), so it is tried up to
// three times.
NfsClientCommand kernel_command(const NfsClientRun& r) {
  if (!r.extra_args.empty())
    throw std::runtime_error("the kernel NFS client takes no " + r.extra_args.front() +
                             " (no raw clnt_dg, no step gate: a restart strikes its call in flight)");
  std::string options = kernel_mount_options(r);
  std::string mnt = r.work_dir + "/client-" + std::to_string(r.client_id) + ".mnt";
  // NFSv4.1 mounts the server's pseudo root (the fsid=0 export); v3 the export's path.
  std::string source = r.server_address + ":" + (r.version == "3" ? r.export_path : "/");
  std::vector<std::string> fsops = {r.program, "--dir", mnt, "--mount-options", options};
  for (const auto& f : workload_flags(r)) fsops.push_back(f);
  std::string script = fmt::format(
      "set -e; mkdir -p {0}; tries=0; until mount -t nfs -o {1} {2} {0}; do tries=$((tries + 1)); "
      "[ $tries -lt 3 ] || exit 32; done; rc=0; {3} || rc=$?; umount -i {0} || umount -i -l {0}; "
      "rmdir {0}; exit $rc",
      process::shell_line({mnt}), process::shell_line({options}), process::shell_line({source}),
      process::shell_line(fsops));
  return {{"unshare", "-m", "--propagation", "private", "sh", "-c", script}, options};
}

std::string kernel_missing() {
  if (::access(netem::kUmlKernel, X_OK) != 0)
    return std::string(netem::kUmlKernel) + " is missing (apt-get install user-mode-linux): the kernel client runs "
                                           "in its guest";
  std::string version = netem::find_uml_modules_version();
  std::string nfs = "/usr/lib/uml/modules/" + version + "/kernel/fs/nfs/nfsv4.ko";
  if (version.empty() || ::access(nfs.c_str(), R_OK) != 0)
    return "no NFS client modules for the user-mode-linux kernel (" + nfs + "; apt-get install user-mode-linux)";
  if (::access(kMountNfs, X_OK) != 0) return std::string(kMountNfs) + " is missing (apt-get install nfs-common)";
  return "";
}

}  // namespace

const std::vector<NfsClientRow>& nfs_clients() {
  static const std::vector<NfsClientRow> rows = {
      {"rpclab", "rpclab-nfs-client: rpcgen stubs over libtirpc, clnt_dg (UDP, its retransmit interval) and clnt_vc",
       "rpclab-nfs-client", {"nfs3-udp", "nfs3-tcp"}, false, {}, [] { return std::string(); }, rpclab_command, true,
       true},
      {"kernel",
       "Linux's NFS client (6.1, user-mode-linux guest): mount -t nfs vers=3|4.1,proto=tcp,timeo,retrans,soft, "
       "rpclab-nfs-fsops's system calls on the mount; its UDP is compiled out",
       "rpclab-nfs-fsops", {"nfs3-tcp", "nfs4.1-tcp"}, true, {"nfsv3", "nfsv4"}, kernel_missing, kernel_command,
       false},
      {"libnfs",
       "rpclab-nfs-libnfs: libnfs 4.0's sync API, NFSv3 over TCP; after a reconnect it resends every outstanding "
       "request with the same xid",
       "rpclab-nfs-libnfs", {"nfs3-tcp"}, false, {}, [] { return std::string(); }, libnfs_command, false},
  };
  return rows;
}

const NfsClientRow& nfs_client(const std::string& name) {
  return named_row(nfs_clients(), name, "NFS client", "clients");
}

std::string client_server_mismatch(const NfsClientRow& client, const NfsServerRow& server) {
  if (client.in_guest && !server.in_guest)
    return "the " + client.name + " NFS client runs inside the user-mode-linux guest, so only with a server that "
           "runs there (knfsd), not " + server.name;
  return "";
}

std::string client_speaks_mismatch(const NfsClientRow& client, const std::string& version,
                                   const std::string& transport) {
  std::string t = nfs_transport_name(version, transport);
  if (std::find(client.speaks.begin(), client.speaks.end(), t) != client.speaks.end()) return "";
  std::string speaks;
  for (const auto& s : client.speaks) speaks += (speaks.empty() ? "" : ", ") + s;
  return "the " + client.name + " NFS client does not speak " + t + " (it speaks " + speaks + ")";
}

std::string nfs_transport_name(const std::string& version, const std::string& transport) {
  return "nfs" + version + "-" + transport;
}

}  // namespace rpclab::harness::nfs
