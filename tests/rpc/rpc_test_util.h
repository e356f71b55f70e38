// What the end-to-end tests in tests/rpc share: the transports under test
// (every row of the table, so a new transport is tested the day it is
// added) and a client made in this process by the same library the
// programs use.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/connect_mode.h"

namespace rpclab::test {

inline std::vector<std::string> all_transports() {
  std::vector<std::string> names;
  for (const TransportRow& row : transports()) names.emplace_back(row.name);
  return names;
}

// The transport's row; a name the table does not hold fails the test.
inline const TransportRow& row_of(const std::string& transport) {
  const TransportRow* row = find_transport(transport);
  if (!row) throw std::invalid_argument("no transport '" + transport + "' in the table");
  return *row;
}

inline bool is_datagram(const std::string& transport) { return row_of(transport).datagram(); }

// The stream transports and the datagram ones, from the table.
inline std::vector<std::string> transports_carried_by(Carrier carrier) {
  std::vector<std::string> names;
  for (const TransportRow& row : transports())
    if (row.traits.carrier == carrier) names.emplace_back(row.name);
  return names;
}
inline std::vector<std::string> stream_transports() { return transports_carried_by(Carrier::kStream); }
inline std::vector<std::string> datagram_transports() { return transports_carried_by(Carrier::kDatagram); }

// "--tcp-nodelay" when the transport's row takes it on both sides, else
// nothing: for tests of many calls in a row, where a stream library that
// leaves Nagle on (xmlrpc-pstream) waits out a delayed ACK on every call.
inline std::vector<std::string> nodelay_flag(const std::string& transport) {
  const TransportRow& row = row_of(transport);
  if (row.takes(kTcpNodelay, Side::kClient) && row.takes(kTcpNodelay, Side::kServer)) return {"--tcp-nodelay"};
  return {};
}

// "--tcp-nodelay" when the row takes it on `side`, else nothing.
inline std::vector<std::string> nodelay_flag_on(const std::string& transport, Side side) {
  if (row_of(transport).takes(kTcpNodelay, side)) return {"--tcp-nodelay"};
  return {};
}

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
  if (row_of(transport).takes(kRetryTimeout, Side::kClient)) options.settings.set(kRetryTimeout, 500);
  return options;
}

// A persistent client; it connects on its first call, and a connect that
// fails is that call's outcome.
inline std::unique_ptr<RpcClient> make_client(const std::string& transport, uint16_t port, int timeout_ms = 5000) {
  return connect_client(client_options(transport, port, timeout_ms));
}

}  // namespace rpclab::test
