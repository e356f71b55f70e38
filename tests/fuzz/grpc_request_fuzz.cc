// Target grpc_request: the bytes of one gRPC request message, parsed as
// each request type of rpclab.wire.Rpclab and served.
//
// Each type is parsed twice: with ParseFromArray, and the way the gRPC
// server does it, through grpc::SerializationTraits from a ByteBuffer (here
// in two slices, as a message split across HTTP/2 frames arrives). Both must
// agree. What parses goes to the same Service object rpclab-server runs,
// in front of a ServerCore, and the reply is checked.
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/proto_utils.h>

#include <string>

#include "core/server_core.h"
#include "fuzz_targets.h"
#include "grpc/grpc_service.h"

namespace rpclab::fuzz {
namespace {

constexpr size_t kLedgerBytes = size_t{4} << 20;

// Parses `bytes` both ways into `msg`; returns whether it parsed.
template <typename Message>
bool parse_both_ways(const uint8_t* data, size_t size, Message* msg) {
  bool direct = msg->ParseFromArray(data, static_cast<int>(size));
  std::string direct_bytes = direct ? msg->SerializeAsString() : "";

  size_t half = size / 2;
  grpc::Slice slices[2] = {grpc::Slice(data, half), grpc::Slice(data + half, size - half)};
  grpc::ByteBuffer buffer(slices, 2);
  Message via_grpc;
  bool grpc_ok = grpc::SerializationTraits<Message>::Deserialize(&buffer, &via_grpc).ok();
  RPCLAB_FUZZ_CHECK(grpc_ok == direct, "ParseFromArray and gRPC's deserializer disagree");
  if (direct)
    RPCLAB_FUZZ_CHECK(via_grpc.SerializeAsString() == direct_bytes, "the two parses differ");
  return direct;
}

}  // namespace

int fuzz_grpc_request(const uint8_t* data, size_t size) {
  static ServerCore core(kLedgerBytes);
  static grpcx::Service service(core);

  wire::NextRequest next;
  if (parse_both_ways(data, size, &next)) {
    wire::NextReply reply;
    uint64_t calls = core.counters().next_calls;
    RPCLAB_FUZZ_CHECK(service.Next(nullptr, &next, &reply).ok(), "Next failed");
    RPCLAB_FUZZ_CHECK(core.counters().next_calls == calls + 1, "NEXT not counted once");
    RPCLAB_FUZZ_CHECK(wire::NextReply_Status_IsValid(reply.status()), "NEXT reply status out of range");
  }

  wire::EchoMessage echo;
  if (parse_both_ways(data, size, &echo)) {
    wire::EchoMessage reply;
    RPCLAB_FUZZ_CHECK(service.Echo(nullptr, &echo, &reply).ok(), "Echo failed");
    RPCLAB_FUZZ_CHECK(reply.payload() == echo.payload(), "ECHO reply differs from the request");
  }

  wire::Empty empty;
  if (parse_both_ways(data, size, &empty)) {
    wire::Empty reply;
    RPCLAB_FUZZ_CHECK(service.Null(nullptr, &empty, &reply).ok(), "Null failed");
  }
  return 0;
}

}  // namespace rpclab::fuzz
