// Target grpc_request: the bytes of one gRPC request message, parsed as
// each request type of rpclab.wire.Rpclab (Levy's, Allman's, Kiraly's) and
// served.
//
// Each type is parsed twice: with ParseFromArray, and the way the gRPC
// server does it, through grpc::SerializationTraits from a ByteBuffer (here
// in two slices, as a message split across HTTP/2 frames arrives). Both must
// agree. What parses goes to the same Service object rpclab-server runs,
// in front of a ServerCore, and the reply is checked.
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/proto_utils.h>

#include <string>

#include "server/server_core.h"
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

// A method either answers or refuses with INVALID_ARGUMENT (the core's
// limits and checks); anything else is a server bug.
void check_answered_or_refused(const grpc::Status& status, const char* method) {
  RPCLAB_FUZZ_CHECK(status.ok() || status.error_code() == grpc::StatusCode::INVALID_ARGUMENT,
                    std::string(method) + " neither answered nor refused as INVALID_ARGUMENT");
}

void serve_allman(grpcx::Service& service, const uint8_t* data, size_t size) {
  wire::IsPrimeRequest prime;
  if (parse_both_ways(data, size, &prime)) {
    wire::IsPrimeReply reply;
    RPCLAB_FUZZ_CHECK(service.IsPrime(nullptr, &prime, &reply).ok(), "IsPrime failed");
  }
  wire::Doubles doubles;
  if (parse_both_ways(data, size, &doubles)) {
    wire::AverageReply mean;
    check_answered_or_refused(service.Average(nullptr, &doubles, &mean), "Average");
    wire::Doubles logs;
    grpc::Status status = service.LogTransform(nullptr, &doubles, &logs);
    check_answered_or_refused(status, "LogTransform");
    if (status.ok()) RPCLAB_FUZZ_CHECK(logs.values_size() == doubles.values_size(), "LogTransform changed the count");
  }
  wire::CountRequest count;
  if (parse_both_ways(data, size, &count)) {
    wire::Doubles values;
    grpc::Status status = service.GetRandNums(nullptr, &count, &values);
    check_answered_or_refused(status, "GetRandNums");
    if (status.ok()) RPCLAB_FUZZ_CHECK(values.values_size() == count.count(), "GetRandNums gave another count");
  }
}

void serve_kiraly(grpcx::Service& service, const uint8_t* data, size_t size) {
  wire::RecordRequest request;
  if (!parse_both_ways(data, size, &request)) return;
  wire::Record record;
  grpc::Status status = service.GetRecord(nullptr, &request, &record);
  check_answered_or_refused(status, "GetRecord");
  if (status.ok()) {
    RPCLAB_FUZZ_CHECK(record.id() == request.id(), "GetRecord answered another id");
    RPCLAB_FUZZ_CHECK(record.photo().size() == request.photo_bytes(), "GetRecord's photo has another size");
  }
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
  serve_allman(service, data, size);
  serve_kiraly(service, data, size);
  return 0;
}

}  // namespace rpclab::fuzz
