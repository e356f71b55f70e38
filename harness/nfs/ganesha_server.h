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

#include "process/child_process.h"
#include "process/command_log.h"

namespace rpclab::harness::nfs {

struct GaneshaOptions {
  std::string netns;         // the server's namespace
  std::string address;       // where the client reaches it (for the readiness check)
  std::string client_netns;  // where the readiness check runs
  std::string work_dir;      // ganesha.conf, ganesha.log and export/ are made here
  bool drc = true;           // false: NFS_CORE_PARAM { DRC_Disabled = true; }
};

// Whether ganesha can run here; the reason when not ("" when it can).
std::string ganesha_missing();

class GaneshaServer {
 public:
  // Writes the config, starts rpcbind and ganesha.nfsd, and waits (up to
  // `ready_within`) until MOUNT v3 and NFS v3 answer NULL over UDP from the
  // client's namespace. Throws std::runtime_error with the log's tail.
  GaneshaServer(const GaneshaOptions& options, process::CommandLog& log,
                std::chrono::milliseconds ready_within = std::chrono::seconds(20));
  ~GaneshaServer();

  const std::string& export_dir() const { return export_dir_; }
  // "running", or how it ended ("killed by SIGSEGV"): a server that died
  // under the workload is evidence, not a setup error.
  std::string state();
  std::string log_tail(size_t lines = 10) const;

 private:
  GaneshaOptions options_;
  std::string export_dir_, log_path_;
  std::unique_ptr<process::ChildProcess> child_;
};

}  // namespace rpclab::harness::nfs
