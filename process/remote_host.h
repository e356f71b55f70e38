// Another machine, reached through the system's OpenSSH client: one
// multiplexed connection (ControlMaster, its socket in a private 0700
// directory) carries every command, so a command costs a round trip, not a
// handshake. Host keys are checked as ssh checks them: rpclab never turns
// on accept-new, so an unknown key is an error that says how to add it.
// Every ssh and scp is logged in commands.log like a local ip/tc/nft.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "process/command_log.h"
#include "process/command_runner.h"

namespace rpclab::process {

// What the user wrote: [user@]host[:port] (an IPv6 address in brackets).
struct SshTarget {
  std::string user, host;
  int port = 0;  // 0: ssh's own (the config's, else 22)
  std::string text() const;
};
// nullopt when `text` is not of that form.
std::optional<SshTarget> parse_ssh_target(const std::string& text);

// The remote host cannot be used: one message that says what and how to fix it.
class RemoteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ssh's own failure (exit 255) in one sentence with the fix: unreachable,
// unknown or changed host key, key refused. Pure, for tests.
std::string explain_ssh_failure(const SshTarget& target, const std::string& ssh_stderr);

class RemoteHost {
 public:
  // `ssh_config`: handed to ssh and scp as -F (empty: the user's own).
  // Makes the private control directory; connects on connect().
  RemoteHost(SshTarget target, std::string ssh_config, CommandLog& log);
  ~RemoteHost();  // closes the master connection, removes the directory
  RemoteHost(const RemoteHost&) = delete;
  RemoteHost& operator=(const RemoteHost&) = delete;

  // Opens the master connection. Throws RemoteError (explain_ssh_failure).
  void connect();
  // Runs `command` in the remote user's shell; ssh's own failure throws RemoteError.
  CommandResult run(const std::string& command);
  CommandResult run(const std::vector<std::string>& argv) { return run(shell_line(argv)); }
  // As run(), and a non-zero exit throws RemoteError quoting the command and its stderr.
  CommandResult run_checked(const std::string& command);
  // scp through the same connection. Throws RemoteError.
  void copy_from(const std::vector<std::string>& remote_paths, const std::string& local_dir);
  void copy_to(const std::vector<std::string>& local_paths, const std::string& remote_dir);

  // The remote's clock minus ours, in seconds: from `rounds` round trips
  // over one ssh session (a line in, `date +%s.%N` out, so no process start
  // is timed), the quickest one's; its length in *rtt. Throws RemoteError.
  double clock_offset(int rounds, double* rtt);

  const SshTarget& target() const { return target_; }
  CommandLog& log() const { return log_; }

 private:
  std::vector<std::string> options() const;  // for both ssh and scp
  std::string scp_host() const;

  SshTarget target_;
  std::string config_;
  std::string control_dir_;
  std::vector<std::string> config_overrides_;  // -o options connect() found needed
  CommandLog& log_;
  bool connected_ = false;
};

}  // namespace rpclab::process
