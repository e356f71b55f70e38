#include "near_calls.h"

#include <stdexcept>

#include "raw/raw_frame.h"
#include "support/wire.h"

namespace rpclab::test {
namespace {

std::string next_args(uint32_t client, uint32_t seq) { return be32(client) + be32(seq); }

// Sun RPC messages that are nearly calls NEXT would run. (A NEXT cut short
// is sent over TCP only: over UDP libtirpc runs it, see
// SunrpcUdp.DecodesPastTheEndOfAShortDatagram.)
std::vector<std::string> near_sunrpc_calls(bool datagram) {
  std::vector<std::string> calls = {
      rpc_call(2, kProgram, 1, 2, be32(0xffffffff)),                       // ECHO claiming 4 GiB
      rpc_call(3, kProgram, 1, 2, be32(20) + "abcd"),                      // ECHO shorter than it says
      rpc_call(4, kProgram, 2, 1, next_args(kRogueClient, 0)),             // a version we do not serve
      rpc_call(5, kProgram + 1, 1, 1, next_args(kRogueClient, 0)),         // another program
      rpc_call(6, kProgram, 1, 99, next_args(kRogueClient, 0)),            // no such procedure
      rpc_call(7, kProgram, 1, 1, next_args(kRogueClient, 0), 3),          // RPC version 3
      be32(8) + be32(1) + be32(0) + be32(0) + be32(0) + be32(0),           // a REPLY, not a call
      "", "\x80",
  };
  if (!datagram) calls.push_back(rpc_call(1, kProgram, 1, 1, be32(kRogueClient)));
  return calls;
}

std::vector<std::string> near_sunrpc_tcp_calls() {
  std::vector<std::string> calls;
  for (const std::string& c : near_sunrpc_calls(false)) calls.push_back(c);
  calls.push_back(be32(0x7fffffff) + "junk");                       // a record far past the bound
  calls.push_back(be32(64) + rpc_call(9, kProgram, 1, 1, ""));     // a first fragment, then silence
  calls.push_back(record(rpc_call(10, kProgram, 1, 1, be32(1))));  // a whole record of a short NEXT
  return calls;
}

// Floor frames that are nearly calls NEXT would run.
std::vector<std::string> near_raw_frames() {
  using namespace raw;
  auto header = [](uint32_t length, uint8_t proc) {
    return be32(length) + be32(1) + std::string(1, static_cast<char>(proc));
  };
  return {
      header(7, 1) + next_args(kRogueClient, 0).substr(0, 7),       // NEXT body cut short
      header(100, 1) + next_args(kRogueClient, 0),                   // length says more than follows
      header(4, 1) + next_args(kRogueClient, 0),                     // length says less
      header(8, 9) + next_args(kRogueClient, 0),                     // no such procedure
      header(8, 0xff) + next_args(kRogueClient, 0),                  // ERROR sent as a request
      header(0xffffffff, 2),                                         // 4 GiB claimed
      header(kMaxBody + 1, 2) + "x",                                 // just past the bound
      "", "\0\0\0",
  };
}

std::vector<std::string> near_grpc() {
  return {"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + std::string(9, '\xff'), "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
          std::string("\0\0\0\4\0\0\0\0\0", 9)};
}

std::string sunrpc_big_echo(size_t size) {
  return record(rpc_call(77, kProgram, 1, 2, xdr_opaque(std::string(size, 'v'))));
}

std::string raw_big_echo(size_t size) { return raw::encode_frame(77, raw::Proc::kEcho, std::string(size, 'v')); }

}  // namespace

const std::vector<WireFixture>& wire_fixtures() {
  static const std::vector<WireFixture> table = {
      {"sunrpc-udp", [] { return near_sunrpc_calls(true); }, nullptr, false},
      {"sunrpc-tcp", near_sunrpc_tcp_calls, sunrpc_big_echo, true},
      {"grpc", near_grpc, nullptr, false},
      {"raw-udp", near_raw_frames, nullptr, false},
      {"raw-tcp", near_raw_frames, raw_big_echo, false},
  };
  return table;
}

const WireFixture& wire_fixture(const std::string& transport) {
  for (const WireFixture& f : wire_fixtures())
    if (f.transport == transport) return f;
  throw std::invalid_argument("tests/rpc/near_calls.cc has no row for transport '" + transport +
                              "': add the near-calls the garbage tests send it");
}

}  // namespace rpclab::test
