#include "ssh_hosts.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "support/wait.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;

void must(const std::vector<std::string>& argv) {
  ProcessResult r = run_program(argv, 30s);
  if (r.exit_code != 0) {
    std::string line;
    for (const auto& a : argv) line += a + " ";
    throw std::runtime_error(line + "failed: " + r.err);
  }
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

std::string SshHosts::unavailable() {
  if (geteuid() != 0) return "needs root: the two ssh hosts are network namespaces (run as root)";
  if (::access("/usr/sbin/sshd", X_OK) != 0)
    return "needs Debian's openssh-server for a real sshd (apt-get install openssh-server; tools/deps.sh test)";
  if (::access("/usr/bin/ssh", X_OK) != 0) return "needs the ssh client (openssh-client)";
  return "";
}

SshHosts::SshHosts() {
  std::string base = "rpclab-" + std::to_string(::getpid()) + "-ssh";
  cli_ = base + "-cli";
  srv_ = base + "-srv";
  must({"ip", "netns", "add", cli_});
  must({"ip", "netns", "add", srv_});
  for (const std::string& ns : {cli_, srv_}) must({"ip", "-n", ns, "link", "set", "lo", "up"});
  // mgmt0: the ssh link; data0: the link under test.
  struct Link { const char* name; const char* net; };
  for (Link l : {Link{"mgmt0", "198.18.1"}, Link{"data0", "198.18.2"}}) {
    must({"ip", "-n", cli_, "link", "add", l.name, "type", "veth", "peer", "name", l.name, "netns", srv_});
    must({"ip", "-n", cli_, "addr", "add", std::string(l.net) + ".1/30", "dev", l.name});
    must({"ip", "-n", srv_, "addr", "add", std::string(l.net) + ".2/30", "dev", l.name});
    must({"ip", "-n", cli_, "link", "set", l.name, "up"});
    must({"ip", "-n", srv_, "link", "set", l.name, "up"});
  }
  for (const char* key : {"id", "id_wrong", "host_srv", "host_cli"})
    must({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", key, "-f", dir_.file(key)});
  write(dir_.file("authorized_keys"), read_all(dir_.file("id.pub")));
  write(dir_.file("known_hosts"), server_mgmt() + " " + read_all(dir_.file("host_srv.pub")) + "198.18.1.1 " +
                                      read_all(dir_.file("host_cli.pub")));
  auto client_config = [&](const std::string& key) {
    return "Host *\n  User root\n  IdentityFile " + dir_.file(key) + "\n  IdentitiesOnly yes\n"
           "  UserKnownHostsFile " + dir_.file("known_hosts") + "\n  GlobalKnownHostsFile /dev/null\n"
           "  StrictHostKeyChecking yes\n";
  };
  write(ssh_config(), client_config("id"));
  write(wrong_key_config(), client_config("id_wrong"));
  start_sshd(srv_, server_mgmt(), "srv");
  start_sshd(cli_, "198.18.1.1", "cli");
  bool up = wait_until([&] {
    return run_program(on_client({"ssh", "-F", ssh_config(), "-o", "ConnectTimeout=2", server_mgmt(), "true"}), 10s)
               .exit_code == 0;
  }, 20s, 50ms);
  if (!up) throw std::runtime_error("sshd in " + srv_ + " did not answer: " + read_all(dir_.file("sshd-srv.log")));
}

void SshHosts::start_sshd(const std::string& ns, const std::string& listen, const std::string& name) {
  std::string cfg = dir_.file("sshd_config-" + name);
  write(cfg, "ListenAddress " + listen + "\nPort 22\nHostKey " + dir_.file("host_" + name) + "\n"
             "PidFile " + dir_.file("sshd-" + name + ".pid") + "\nAuthorizedKeysFile " + dir_.file("authorized_keys") +
             "\nStrictModes no\nUsePAM no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
             "KbdInteractiveAuthentication no\nSubsystem sftp /usr/lib/openssh/sftp-server\n");
  // sshd wants /run/sshd (its privilege separation directory): each gets
  // a /run of its own in a private mount namespace, so the host's /run is
  // left as it was.
  sshd_.push_back(std::make_unique<Child>(
      std::vector<std::string>{"ip", "netns", "exec", ns, "unshare", "-m", "--propagation", "private", "sh", "-c",
                               "mount -t tmpfs tmpfs /run && mkdir /run/sshd && exec /usr/sbin/sshd -D -e -f " + cfg},
      dir_.file("sshd-" + name + ".log")));
}

std::vector<std::string> SshHosts::on_client(std::vector<std::string> argv) const {
  argv.insert(argv.begin(), {"ip", "netns", "exec", cli_});
  return argv;
}

std::vector<std::string> SshHosts::on_server(std::vector<std::string> argv) const {
  argv.insert(argv.begin(), {"ip", "netns", "exec", srv_});
  return argv;
}

// Whatever still runs inside (sshd's sessions, an ssh master a killed
// controller left) goes with the namespaces: by pid, from `ip netns pids`.
SshHosts::~SshHosts() {
  sshd_.clear();
  for (const std::string& ns : {cli_, srv_}) {
    ProcessResult pids = run_program({"ip", "netns", "pids", ns}, 10s);
    size_t at = 0;
    while (at < pids.out.size()) {
      size_t nl = pids.out.find('\n', at);
      std::string pid = pids.out.substr(at, nl - at);
      if (!pid.empty()) ::kill(std::stoi(pid), SIGKILL);
      if (nl == std::string::npos) break;
      at = nl + 1;
    }
    run_program({"ip", "netns", "del", ns}, 10s);
  }
}

}  // namespace rpclab::test
