#include "harness/nfs/ganesha_server.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "harness/nfs/server_ready.h"

namespace rpclab::harness::nfs {

namespace {

constexpr const char* kGanesha = "/usr/bin/ganesha.nfsd";
constexpr const char* kRpcbind = "/usr/sbin/rpcbind";
constexpr const char* kVfsFsal = "/usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so";

std::string config(const std::string& export_dir, bool drc) {
  return fmt::format(R"(# Written by rpclab (harness/nfs/ganesha_server.cc).
NFS_CORE_PARAM {{
  Protocols = 3;
  NFS_Port = 2049;
  Enable_NLM = false;
  Enable_RQUOTA = false;
  DRC_Disabled = {};
}}
NFSV4 {{ Graceless = true; }}
EXPORT {{
  Export_Id = 1;
  Path = {};
  Pseudo = /export;
  Protocols = 3;
  Transports = UDP, TCP;
  Access_Type = RW;
  Squash = No_Root_Squash;
  SecType = sys;
  FSAL {{ Name = VFS; }}
}}
LOG {{ Default_Log_Level = EVENT; }}
)", drc ? "false" : "true", export_dir);
}

}  // namespace

std::string ganesha_missing() {
  if (::access(kGanesha, X_OK) != 0) return std::string(kGanesha) + " is missing (apt-get install nfs-ganesha)";
  if (::access(kVfsFsal, R_OK) != 0) return std::string(kVfsFsal) + " is missing (apt-get install nfs-ganesha-vfs)";
  if (::access(kRpcbind, X_OK) != 0) return "rpcbind is missing (apt-get install rpcbind)";
  // ganesha's VFS FSAL finds the export's file system in /etc/mtab, and
  // fails the export without it (its MNT answers status 13): a booted
  // Debian has the link, a bare chroot or debootstrap root may not.
  if (::access("/etc/mtab", R_OK) != 0)
    return "/etc/mtab is missing, which nfs-ganesha's VFS reads to find the export's file system (as root: ln -s "
           "/proc/self/mounts /etc/mtab, as a booted Debian has it)";
  return "";
}

GaneshaServer::GaneshaServer(const GaneshaOptions& options, process::CommandLog& log,
                             std::chrono::milliseconds ready_within)
    : options_(options), log_(log) {
  if (std::string why = ganesha_missing(); !why.empty()) throw std::runtime_error(why);
  std::filesystem::create_directories(options.work_dir);
  // Normal form: ganesha refuses an export Path with "//" or "/./" in it
  // (an --out given as "runs//x" failed its cells).
  std::string dir = std::filesystem::absolute(options.work_dir).lexically_normal().string();
  if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  export_dir_ = dir + "/export";
  log_path_ = dir + "/ganesha.log";
  // A cell's classes read the export's end state: another cell's names in
  // it would be judged as this one's. Never emptied here (not ours).
  if (std::filesystem::exists(export_dir_) && !std::filesystem::is_empty(export_dir_))
    throw std::runtime_error(export_dir_ + " holds an earlier cell's files: give the cell a new folder");
  std::filesystem::create_directories(export_dir_);
  conf_ = dir + "/ganesha.conf";
  std::ofstream(conf_) << config(export_dir_, options.drc);
  start(ready_within, options.client_netns);
}

void GaneshaServer::start(std::chrono::milliseconds ready_within, const std::string& check_from) {
  std::string dir = std::filesystem::absolute(options_.work_dir).lexically_normal().string();
  // One shell in a private mount namespace: ganesha's /run and recovery
  // folder are tmpfs there, rpcbind in the background, ganesha in front.
  std::string script = fmt::format(
      "set -e; mount -t tmpfs tmpfs /run; mkdir -p /run/rpcbind /var/lib/nfs/ganesha; "
      "mount -t tmpfs tmpfs /var/lib/nfs/ganesha; {} -w -f & "
      "while [ ! -S /run/rpcbind.sock ]; do sleep 0.05; done; "
      "exec {} -F -f {} -L {} -p /run/ganesha.pid",
      kRpcbind, kGanesha, conf_, log_path_);
  process::SpawnOptions spawn;
  spawn.netns = options_.netns;
  spawn.stdout_path = dir + "/ganesha.out";
  spawn.stderr_path = dir + "/ganesha.err";
  child_ = std::make_unique<process::ChildProcess>(
      std::vector<std::string>{"unshare", "-m", "--propagation", "private", "sh", "-c", script}, spawn, log_);
  wait_until_served("ganesha.nfsd", options_.address, check_from, {"udp"}, *child_, ready_within,
                    [this] { return log_tail(); }, log_);
}

GaneshaServer::~GaneshaServer() = default;  // ChildProcess kills the group (rpcbind too)

std::string GaneshaServer::state() {
  auto status = child_->poll();
  return status ? process::describe_wait_status(*status) : "running";
}

void GaneshaServer::restart() {
  // SIGTERM to the group (ganesha.nfsd and its rpcbind), SIGKILL after 5 s;
  // then the same config and export again: the reply cache was in memory.
  int status = child_->stop(std::chrono::seconds(5));
  log_.comment("ganesha.nfsd stopped for a restart: " + process::describe_wait_status(status));
  // Asked from the server's own namespace: a restart event drops every
  // packet to the client meanwhile (restart_event.h).
  start(std::chrono::seconds(20), options_.netns);
}

std::string GaneshaServer::log_tail(size_t lines) const { return file_tail(log_path_, lines); }

}  // namespace rpclab::harness::nfs
