#include "support/redis_process.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/inet.h"
#include "support/wait.h"

namespace rpclab::test {
namespace {

// A port nothing listens on now: the kernel's pick, given back at once.
uint16_t free_port() {
  int fd = bind_socket(SOCK_STREAM, "127.0.0.1", 0);
  uint16_t port = bound_port(fd);
  ::close(fd);
  return port;
}

bool accepts(uint16_t port) {
  std::string error;
  int err_no = 0;
  int fd = connect_tcp(resolve_ipv4("127.0.0.1", port), 200, false, &error, &err_no);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace

bool RedisProcess::installed() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((dir + "/redis-server").c_str(), X_OK) == 0) return true;
  return false;
}

RedisProcess::RedisProcess() {
  // Between free_port() and Redis's bind another program may take the
  // port; then Redis exits and a new port is tried.
  for (int attempt = 0; attempt < 3; ++attempt)
    if (start()) return;
  std::string log;
  try {
    log = read_whole_file(dir_.file("redis.log"));
  } catch (const std::exception&) {
  }
  throw std::runtime_error("redis-server did not start on 127.0.0.1:" + std::to_string(port_) + ": " + log);
}

bool RedisProcess::start() {
  port_ = free_port();
  child_ = std::make_unique<Child>(
      std::vector<std::string>{"redis-server", "--port", std::to_string(port_), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", dir_.path()},
      dir_.file("redis.log"));
  return wait_until([&] { return accepts(port_) || child_->exit_code(); }, std::chrono::seconds(10),
                    std::chrono::milliseconds(5)) &&
         !child_->exit_code();
}

void RedisProcess::stop() { child_->stop(SIGTERM); }

}  // namespace rpclab::test
