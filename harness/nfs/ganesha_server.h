// nfs-ganesha (VFS) serving one export, NFSv3 over UDP and TCP, inside a
// network namespace with a mount namespace of its own: a tmpfs over /run
// (rpcbind's socket there is how ganesha registers MOUNT and NFS, and a
// private /run keeps them off the host's rpcbind) and over
// /var/lib/nfs/ganesha (its recovery state). Its own rpcbind runs beside
// it; both are one process group, killed with this object.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "harness/nfs/nfs_server.h"
#include "process/child_process.h"
#include "process/command_log.h"

namespace rpclab::harness::nfs {

// work_dir: ganesha.conf, ganesha.log and export/ are made there; drc
// false: NFS_CORE_PARAM { DRC_Disabled = true; }.
using GaneshaOptions = NfsServerOptions;

// Whether ganesha can run here; the reason when not ("" when it can).
std::string ganesha_missing();

class GaneshaServer : public NfsServer {
 public:
  // Writes the config, starts rpcbind and ganesha.nfsd, and waits (up to
  // `ready_within`) until MOUNT v3 and NFS v3 answer NULL over UDP from the
  // client's namespace. Throws std::runtime_error with the log's tail.
  GaneshaServer(const GaneshaOptions& options, process::CommandLog& log,
                std::chrono::milliseconds ready_within = std::chrono::seconds(20));
  ~GaneshaServer() override;

  const std::string& export_dir() const override { return export_dir_; }
  std::string state() override;
  std::string log_tail(size_t lines = 10) const override;
  // Stops ganesha.nfsd and its rpcbind (SIGTERM, then SIGKILL) and starts
  // both again on the same config, export and address; returns once MOUNT
  // and NFS v3 answer (asked from the server's namespace). Its reply cache
  // is in memory: the new one is empty.
  void restart() override;

 private:
  // Spawns the group and waits until it serves, asked from `check_from`'s namespace.
  void start(std::chrono::milliseconds ready_within, const std::string& check_from);

  GaneshaOptions options_;
  process::CommandLog& log_;
  std::string export_dir_, log_path_, conf_;
  std::unique_ptr<process::ChildProcess> child_;
};

}  // namespace rpclab::harness::nfs
