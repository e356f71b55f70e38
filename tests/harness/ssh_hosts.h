// Two "hosts" for the --server-host tests: network namespaces, each running
// Debian's real sshd, joined by a management link (ssh) and a separate data
// link (RPC), both veth pairs with addresses in 198.18.0.0/15 that exist
// only inside them. The keys are made fresh in a temp folder; known_hosts
// holds the server's generated host key (nothing is accepted unseen).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::test {

class SshHosts {
 public:
  // "" when this machine can hold them, else why not (for GTEST_SKIP).
  static std::string unavailable();
  SshHosts();   // throws std::runtime_error saying what failed
  ~SshHosts();  // kills what runs in the namespaces, deletes them

  const std::string& client_ns() const { return cli_; }
  const std::string& server_ns() const { return srv_; }
  std::string server_mgmt() const { return "198.18.1.2"; }  // sshd listens here
  std::string server_data() const { return "198.18.2.2"; }  // the RPC server here
  std::string ssh_config() const { return dir_.file("ssh_config"); }
  std::string file(const std::string& name) const { return dir_.file(name); }
  // argv run inside the client host (the controller's place).
  std::vector<std::string> on_client(std::vector<std::string> argv) const;
  std::vector<std::string> on_server(std::vector<std::string> argv) const;
  // A second client config whose key the server does not know.
  std::string wrong_key_config() const { return dir_.file("ssh_config_wrong_key"); }

 private:
  void start_sshd(const std::string& ns, const std::string& listen, const std::string& name);
  TempDir dir_;
  std::string cli_, srv_;
  std::vector<std::unique_ptr<Child>> sshd_;
};

}  // namespace rpclab::test
