// A real redis-server for one test, on a free loopback port, nothing
// saved (--save "" --appendonly no): the shared at-most-once table's
// store, as the harness starts one per trial. SIGKILLed with the object.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::test {

class RedisProcess {
 public:
  // Whether redis-server is on PATH; tests that need it skip without it.
  static bool installed();

  // Returns once Redis accepts connections; throws std::runtime_error with
  // its log when it does not within 10 s.
  RedisProcess();

  uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  // SIGTERM, as Redis going away under the servers.
  void stop();

 private:
  bool start();  // false when another program took the port first

  TempDir dir_;
  std::unique_ptr<Child> child_;
  uint16_t port_ = 0;
};

}  // namespace rpclab::test
