// Linux's kernel NFS server (knfsd) serving one tmpfs export, NFSv3 over
// UDP and TCP and NFSv4.1, in the server's network namespace. knfsd is per
// network namespace: its threads, sockets, exports, reply cache and
// counters all belong to the namespace rpc.nfsd ran in. This host kernel has
// no nfsd, so the row runs inside a user-mode-linux guest (in_guest: the
// cell runs there whole, with nfsd's modules loaded).
//
// One shell in the server's namespace with a mount namespace of its own
// holds it: tmpfs over /run (its rpcbind's socket), /var/lib/nfs (etab,
// rmtab, v4 recovery) and the export, the nfsd filesystem on /proc/fs/nfsd
// (mounted there, so it is this namespace's nfsd), rpcbind and rpc.mountd in
// the foreground of that group. The harness reaches that mount namespace
// through /proc/<shell>/root and nsenter.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "harness/nfs/nfs_server.h"
#include "process/child_process.h"
#include "process/command_log.h"

namespace rpclab::harness::nfs {

// What knfsd needs here, the reason when something is missing ("" when
// nothing is): linux.uml, nfsd.ko for its version, nfs-kernel-server's
// rpc.nfsd, exportfs and rpc.mountd, rpcbind.
std::string knfsd_missing();
// The modules a guest loads for it (run_in_guest's GuestOptions::modules).
std::vector<std::string> knfsd_guest_modules();

class KnfsdServer : public NfsServer {
 public:
  // Must run inside the guest (throws std::runtime_error when /proc/fs/nfsd
  // cannot be had). Waits (up to `ready_within`) until MOUNT v3 and NFS v3
  // answer NULL over UDP and TCP from the client's namespace.
  KnfsdServer(const NfsServerOptions& options, process::CommandLog& log,
              std::chrono::milliseconds ready_within = std::chrono::seconds(20));
  ~KnfsdServer() override;  // stops nfsd's threads, then the shell's group

  // The export as the harness sees it: through the shell's mount namespace.
  const std::string& export_dir() const override { return seen_export_; }
  std::string mount_path() const override { return export_path_; }
  std::string state() override;
  std::string log_tail(size_t lines = 10) const override;
  // /proc/fs/nfsd/reply_cache_stats (reply_cache: max_entries, num_entries,
  // cache_hits, cache_misses, not_cached, payload_misses, ...),
  // /proc/net/rpc/nfsd's rc line (rc: hits, misses, nocache) and its proc3
  // line named in RFC 1813's order (proc3: {"MKDIR": n, ...}), its proc4
  // (NULL, COMPOUND) and proc4ops (RFC 8881's operations: {"CREATE": n,
  // "SEQUENCE": n, ...}) lines, and threads.
  nlohmann::json counters() override;
  // reply_cache_stats' cache_hits (the /proc/fs/nfsd counter).
  std::optional<uint64_t> cache_hits_between(const nlohmann::json& before, const nlohmann::json& after) const override;
  // proc3's count of the operation's NFSv3 procedure (GETATTR, MKDIR, ...),
  // or for 4.1 proc4ops' count of the operation in the COMPOUNDs (GETATTR;
  // MKDIR is CREATE there); none for an operation without a row here.
  std::optional<OpCount> op_count_between(const nlohmann::json& before, const nlohmann::json& after,
                                          const std::string& version, rpclab::nfs::NfsOp op) const override;
  // `rpc.nfsd 0` (every nfsd thread stops, the last one shuts the
  // namespace's nfsd down), then `rpc.nfsd` again, and the readiness check.
  void restart() override;

 private:
  std::string nfsd_file(const std::string& name) const;
  void start_threads();

  NfsServerOptions options_;
  process::CommandLog& log_;
  std::string export_path_, seen_export_, err_path_;
  std::unique_ptr<process::ChildProcess> child_;
};

}  // namespace rpclab::harness::nfs
