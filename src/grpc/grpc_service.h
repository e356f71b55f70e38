// The gRPC service behind the grpc transport: a decoded request in, the
// shared ServerCore call, the reply out. In its own header so tests and the
// fuzz targets (tests/fuzz/) can call it on a parsed message without a server.
#pragma once

#include "server/server_core.h"
#include "rpclab.grpc.pb.h"

namespace rpclab::grpcx {

class Service final : public wire::Rpclab::Service {
 public:
  explicit Service(ServerCore& core) : core_(core) {}

  // The ServerContext is not used, so callers outside a server may pass null.
  grpc::Status Null(grpc::ServerContext*, const wire::Empty*, wire::Empty*) override;
  grpc::Status Next(grpc::ServerContext*, const wire::NextRequest* req, wire::NextReply* rep) override;
  grpc::Status Echo(grpc::ServerContext*, const wire::EchoMessage* req, wire::EchoMessage* rep) override;
  grpc::Status IsPrime(grpc::ServerContext*, const wire::IsPrimeRequest* req, wire::IsPrimeReply* rep) override;
  grpc::Status Average(grpc::ServerContext*, const wire::Doubles* req, wire::AverageReply* rep) override;
  grpc::Status GetRandNums(grpc::ServerContext*, const wire::CountRequest* req, wire::Doubles* rep) override;
  grpc::Status LogTransform(grpc::ServerContext*, const wire::Doubles* req, wire::Doubles* rep) override;
  grpc::Status GetRecord(grpc::ServerContext*, const wire::RecordRequest* req, wire::Record* rep) override;

 private:
  ServerCore& core_;
};

}  // namespace rpclab::grpcx
