// Messages that are almost calls a server would run, per transport, for
// the garbage tests: one row per row of the transport table
// (src/transport_table.cc). wire_fixture() throws for a transport
// with no row, so a new transport fails Garbage.* loudly until it has one
// (WireFixtures.CoverEveryTransport). Every crafted NEXT names kRogueClient.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rpclab::test {

inline constexpr uint32_t kRogueClient = 666;

struct WireFixture {
  std::string_view transport;
  std::vector<std::string> (*near_calls)();
  // The whole request for an ECHO of `size` bytes, or nullptr where the
  // VanishingClient test does not apply (gRPC frames its own).
  std::string (*big_echo)(size_t size);
  // A peer stopping mid-request holds the whole server (libtirpc's svc_vc):
  // the garbage test closes those peers before its valid call.
  bool stalls_hold_the_server;
};

const std::vector<WireFixture>& wire_fixtures();
const WireFixture& wire_fixture(const std::string& transport);  // throws std::invalid_argument

}  // namespace rpclab::test
