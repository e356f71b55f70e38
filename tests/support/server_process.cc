#include "support/server_process.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "support/wait.h"

namespace rpclab::test {
namespace {

constexpr auto kStartTimeout = std::chrono::seconds(20);  // gRPC's first start is slow under load

}  // namespace

ServerProcess::ServerProcess(const ServerSpec& spec) {
  std::vector<std::string> argv = spec.wrapper;
  for (const std::string& a : {bin("rpclab-server"), std::string("--transport"), spec.transport,
                               std::string("--listen"), spec.listen, std::string("--ready-file"),
                               dir_.file("ready.json"), std::string("--ledger"), dir_.file("ledger.bin")})
    argv.push_back(a);
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  child_ = std::make_unique<Child>(argv, dir_.file("server.log"));

  std::string ready = dir_.file("ready.json");
  bool served = wait_until([&] { return ::access(ready.c_str(), R_OK) == 0 || child_->exit_code(); }, kStartTimeout,
                           std::chrono::milliseconds(5));
  if (auto code = child_->exit_code(); code && ::access(ready.c_str(), R_OK) != 0)
    throw std::runtime_error(spec.transport + " server ended before serving (" + describe_exit(*code) + "): " + log());
  if (!served) throw std::runtime_error(spec.transport + " server did not report ready in time: " + log());
  port_ = nlohmann::json::parse(read_whole_file(dir_.file("ready.json"))).at("port").get<uint16_t>();
}

std::string ServerProcess::log() const {
  try {
    return read_whole_file(dir_.file("server.log"));
  } catch (const std::exception&) {
    return "";
  }
}

Ledger ServerProcess::stop() {
  int code = child_->stop(SIGTERM);
  if (code != 0) throw std::runtime_error("server stopped with " + describe_exit(code) + ": " + log());
  return Ledger::read_file(dir_.file("ledger.bin"));
}

void ServerProcess::kill() {
  int code = child_->stop(SIGKILL);
  if (code != 128 + SIGKILL)
    throw std::runtime_error("server ended with " + describe_exit(code) + " before SIGKILL: " + log());
}

}  // namespace rpclab::test
