// build/rpclab-server as a real process on loopback: started with
// --ready-file and --ledger in a folder of its own, waited for until it
// serves, stopped with SIGTERM, and its execution ledger read back.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "server/ledger.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::test {

struct ServerSpec {
  std::string transport;
  std::vector<std::string> args;     // more flags, e.g. {"--udp-bufsize", "65536"}
  std::vector<std::string> wrapper;  // runs the server through this, e.g. nsenter ...
  std::string listen = "127.0.0.1:0";  // a fixed port to restart a server where it was
};

class ServerProcess {
 public:
  // Returns once the server writes its ready file; throws std::runtime_error
  // with the server's own output when it exits or stays silent instead.
  explicit ServerProcess(const ServerSpec& spec);
  explicit ServerProcess(const std::string& transport) : ServerProcess(ServerSpec{transport}) {}

  uint16_t port() const { return port_; }
  pid_t pid() const { return child_->pid(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  bool running() { return !child_->exit_code(); }
  std::string log() const;  // what the server printed so far

  // SIGTERM, then the ledger it wrote; throws unless it exited 0.
  Ledger stop();
  // SIGKILL, as a crash: nothing is written. Throws unless SIGKILL ended it.
  void kill();

 private:
  TempDir dir_;
  std::unique_ptr<Child> child_;
  uint16_t port_ = 0;
};

}  // namespace rpclab::test
