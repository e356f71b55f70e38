#include "harness/nfs/ganesha_server.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "process/command_runner.h"

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
  return "";
}

GaneshaServer::GaneshaServer(const GaneshaOptions& options, process::CommandLog& log,
                             std::chrono::milliseconds ready_within)
    : options_(options) {
  if (std::string why = ganesha_missing(); !why.empty()) throw std::runtime_error(why);
  std::filesystem::create_directories(options.work_dir);
  std::string dir = std::filesystem::absolute(options.work_dir).string();
  export_dir_ = dir + "/export";
  log_path_ = dir + "/ganesha.log";
  std::filesystem::create_directories(export_dir_);
  std::string conf = dir + "/ganesha.conf";
  std::ofstream(conf) << config(export_dir_, options.drc);
  // One shell in a private mount namespace: ganesha's /run and recovery
  // folder are tmpfs there, rpcbind in the background, ganesha in front.
  std::string script = fmt::format(
      "set -e; mount -t tmpfs tmpfs /run; mkdir -p /run/rpcbind /var/lib/nfs/ganesha; "
      "mount -t tmpfs tmpfs /var/lib/nfs/ganesha; {} -w -f & "
      "while [ ! -S /run/rpcbind.sock ]; do sleep 0.05; done; "
      "exec {} -F -f {} -L {} -p /run/ganesha.pid",
      kRpcbind, kGanesha, conf, log_path_);
  process::SpawnOptions spawn;
  spawn.netns = options.netns;
  spawn.stdout_path = dir + "/ganesha.out";
  spawn.stderr_path = dir + "/ganesha.err";
  child_ = std::make_unique<process::ChildProcess>(
      std::vector<std::string>{"unshare", "-m", "--propagation", "private", "sh", "-c", script}, spawn, log);
  auto deadline = std::chrono::steady_clock::now() + ready_within;
  for (;;) {
    bool ready = true;
    for (const char* program : {"100005", "100003"}) {
      auto r = process::run({"rpcinfo", "-T", "udp", options.address, program, "3"}, log, options.client_netns);
      ready = ready && r.exit_code == 0;
    }
    if (ready) return;
    if (!child_->running())
      throw std::runtime_error("ganesha.nfsd ended before it served (" + state() + "): " + log_tail());
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("ganesha.nfsd did not answer MOUNT and NFS v3 within " +
                               std::to_string(ready_within.count()) + " ms: " + log_tail());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

GaneshaServer::~GaneshaServer() = default;  // ChildProcess kills the group (rpcbind too)

std::string GaneshaServer::state() {
  auto status = child_->poll();
  return status ? process::describe_wait_status(*status) : "running";
}

std::string GaneshaServer::log_tail(size_t lines) const {
  std::ifstream in(log_path_);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += all[i] + "\n";
  return out;
}

}  // namespace rpclab::harness::nfs
