#include "harness/nfs/server_ready.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "process/command_runner.h"

namespace rpclab::harness::nfs {

void wait_until_served(const std::string& who, const std::string& address, const std::string& client_netns,
                       const std::vector<std::string>& transports, process::ChildProcess& server,
                       std::chrono::milliseconds within, const std::function<std::string()>& why,
                       process::CommandLog& log) {
  auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    bool ready = true;
    for (const auto& transport : transports)
      for (const char* program : {"100005", "100003"})
        ready = ready && process::run({"rpcinfo", "-T", transport, address, program, "3"}, log, client_netns).exit_code == 0;
    if (ready) return;
    if (auto status = server.poll())
      throw std::runtime_error(who + " ended before it served (" + process::describe_wait_status(*status) + "): " + why());
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error(who + " did not answer MOUNT and NFS v3 within " + std::to_string(within.count()) +
                               " ms: " + why());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string file_tail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += all[i] + "\n";
  return out;
}

}  // namespace rpclab::harness::nfs
