// What the end-to-end tests in tests/rpc share: the transports under test
// (every row of the table, so a new transport is tested the day it is
// added) and a client made in this process by the same library the
// programs use.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/transport.h"

namespace rpclab::test {

inline std::vector<std::string> all_transports() {
  std::vector<std::string> names;
  for (const TransportRow& row : transports()) names.emplace_back(row.name);
  return names;
}

inline bool is_datagram(const std::string& transport) { return transport.find("udp") != std::string::npos; }

// gtest parameter names allow no '-'.
inline std::string param_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

inline ClientOptions client_options(const std::string& transport, uint16_t port, int timeout_ms = 5000) {
  ClientOptions options;
  options.transport = transport;
  options.port = port;
  options.timeout_ms = timeout_ms;
  // Loopback loses nothing; should it, retry well inside the timeout.
  if (transport == "sunrpc-udp") options.retry_timeout_ms = 500;
  return options;
}

// A persistent client; it connects on its first call, and a connect that
// fails is that call's outcome.
inline std::unique_ptr<RpcClient> make_client(const std::string& transport, uint16_t port, int timeout_ms = 5000) {
  return connect_client(client_options(transport, port, timeout_ms));
}

}  // namespace rpclab::test
