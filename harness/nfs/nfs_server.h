// An NFS server is a row in a table (nfs_servers()): its name as records
// say it, what it needs that this machine may lack, where it runs (in the
// server's namespace on the host, or inside a user-mode-linux guest whose
// kernel has nfsd), and how it starts. Everything else in harness/nfs
// speaks to the NfsServer interface and never compares a server's name.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nfs/nfs_workload.h"
#include "process/command_log.h"

namespace rpclab::harness::nfs {

struct NfsServerOptions {
  std::string netns;         // the server's namespace
  std::string address;       // where the client reaches it (for the readiness check)
  std::string client_netns;  // where the readiness check runs
  std::string work_dir;      // the server's config, log and (if on this filesystem) export
  bool drc = true;           // its duplicate request cache, where it can be turned off
};

class NfsServer {
 public:
  virtual ~NfsServer() = default;
  // The export's root as a path the harness can list at the end (the
  // end state of the workload's names).
  virtual const std::string& export_dir() const = 0;
  // The path the client mounts (MNT's argument).
  virtual std::string mount_path() const { return export_dir(); }
  // "running", or how it ended ("killed by SIGSEGV"): a server that died
  // under the workload is evidence, not a setup error.
  virtual std::string state() = 0;
  virtual std::string log_tail(size_t lines = 10) const = 0;
  // What the server itself says it ran, read now: per-operation counts and
  // its reply cache's hits and misses where it keeps them ({} when it
  // says nothing). The cell reads it before and after the workload.
  virtual nlohmann::json counters() { return nlohmann::json::object(); }
  // Calls its reply cache answered, from two readings of counters(); none
  // when it does not say.
  virtual std::optional<uint64_t> cache_hits_between(const nlohmann::json& before, const nlohmann::json& after) const {
    return std::nullopt;
  }
  // How many calls of `op` over NFS `version` ("3", "4.1") the server
  // says it ran between two readings of counters(), and the counter it
  // read ("proc3 GETATTR"); none when it does not say.
  struct OpCount {
    uint64_t count = 0;
    std::string counter;
  };
  virtual std::optional<OpCount> op_count_between(const nlohmann::json& before, const nlohmann::json& after,
                                                  const std::string& version, rpclab::nfs::NfsOp op) const {
    return std::nullopt;
  }
  // Stops the server and starts it again in place (same export, same
  // address), returning once it serves (asked from the server's own
  // namespace: the link to the client may be dropping everything). Throws
  // std::runtime_error for a row that cannot.
  virtual void restart() { throw std::runtime_error("this NFS server cannot be restarted in place"); }
};

struct NfsServerRow {
  std::string name;           // "nfs-ganesha", "knfsd": the record's `server`
  std::string help;           // one line for --help and the docs
  bool in_guest = false;      // runs inside a user-mode-linux guest (this kernel has no nfsd)
  std::vector<std::string> guest_modules;  // what that guest loads for it (GuestOptions::modules)
  bool drc_switch = false;    // its reply cache can be turned off (--drc off)
  std::function<std::string()> missing;  // why it cannot run here; "" when it can
  std::function<std::unique_ptr<NfsServer>(const NfsServerOptions&, process::CommandLog&)> start;
};

const std::vector<NfsServerRow>& nfs_servers();
// The row named `name`; throws std::invalid_argument naming the rows.
const NfsServerRow& nfs_server(const std::string& name);

}  // namespace rpclab::harness::nfs
