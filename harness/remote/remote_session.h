// The server's host when it is another machine (--server-host): the ssh
// connection, the rpclab-server there (checked to be this build, or copied
// over with --deploy), what the records say about that host, and the
// leftovers of earlier runs removed before anything starts.
//
// On the remote, everything of a run lives under kRemoteRoot/<run>/: per
// trial a folder with the server's files, its pid, a cleanup.sh that kills
// it (and removes whatever else the trial set up there), and a lease (the
// epoch second after which the trial is over whatever happened to us).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/remote/remote_watchdog.h"
#include "netem/faults/fault_backend.h"
#include "process/remote_host.h"

namespace rpclab::harness {

inline constexpr const char* kRemoteRoot = "/tmp/rpclab-remote";

struct RemoteOptions {
  std::string server_host;     // [user@]host[:port]; empty: no remote
  std::string server_addr;     // where clients reach the server (data link); default: server_host's host
  std::string ssh_config;      // -F
  std::string remote_bin_dir;  // where rpclab-server is there; default: this build's own directory
  bool deploy = false;         // copy this build's programs there first
  std::string server_iface;    // the data interface there, faults go on it; default: the route to the clients
  bool management_link_ok = false;  // --i-know-this-is-the-management-link
  bool faults = false;         // some cell has faults: find the interface and root there first
  double max_clock_offset_ms = 1000;  // refuse a host whose clock is further off than this
  std::string client_host;     // --client-host: the clients run there too; empty: here
  // Set by open_remote, not by a flag: what the session's host runs, and
  // the clients' address on the data link when they are on --client-host.
  std::string program = "rpclab-server";
  std::string clients_data_addr;
};

class RemoteSession {
 public:
  // Connects, removes what killed runs left, deploys or checks the
  // server's version. Throws process::RemoteError with one message and the fix.
  RemoteSession(const RemoteOptions& options, const std::string& local_bin_dir, const std::string& run_id,
                process::CommandLog& log);
  ~RemoteSession();  // removes the run's remote folder once its trials have removed theirs

  process::RemoteHost& host() { return host_; }
  const std::string& bin_dir() const { return bin_dir_; }
  const std::string& server_addr() const { return server_addr_; }
  const std::string& data_iface() const { return iface_; }  // "" when no cell has faults
  const std::string& sudo() const { return sudo_; }         // "" as root there, else "sudo -n"
  std::string run_dir() const;  // kRemoteRoot/<run id>
  const std::string& run_id() const { return run_id_; }
  const WatchdogChoice& watchdog() const { return watchdog_; }  // how the dead-man switch waits there
  // Who makes the faults there (tc netem, else nftables) and why; kNone when no cell has faults.
  const netem::Choice& faults() const { return faults_; }
  // Who makes `requested`'s faults there ("auto": faults(); "nftables" is
  // always there once faults are prepared). Throws RemoteError when the
  // requested backend is not there.
  netem::Choice faults_for(const std::string& requested) const;
  // The source address this host uses towards `addr` (`ip route get`), or "".
  std::string source_addr_to(const std::string& addr);
  // The remote's kernel, CPUs, load and clock offset now (ssh round trips),
  // and which host runs what: a trial's "hosts".
  nlohmann::json facts();
  // The same of this host alone (kernel, CPUs, load, clock offset, what it runs).
  nlohmann::json host_facts();

 private:
  void remove_leftovers();
  void check_packages(bool faults);
  void deploy(const std::string& local_bin_dir);
  void check_version();
  void prepare_faults(const RemoteOptions& options);
  std::string route_dev(const std::string& to);

  process::RemoteHost host_;
  std::string run_id_, server_addr_, bin_dir_, iface_, sudo_, program_;
  nlohmann::json static_facts_, packages_;
  WatchdogChoice watchdog_;
  netem::Choice faults_{netem::BackendKind::kNone, "no cell has faults"};
};


}  // namespace rpclab::harness
