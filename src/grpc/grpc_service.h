// The gRPC services behind the grpc rows: a decoded request in, the shared
// ServerCore call, the reply out. Service is the sync API's (grpc with
// --grpc-sync-server), whose code the async server (grpc) runs too;
// CallbackService the callback API's (grpc-callback-server,
// grpc-callback), which answers each call on the gRPC thread that read
// it, through Service's code. In its own header
// so tests and the fuzz targets (tests/fuzz/) can call it on a parsed
// message without a server.
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

  // NEXT with its origin read from either API's context (null: unknown).
  grpc::Status next_from(const grpc::ServerContextBase* ctx, const wire::NextRequest* req, wire::NextReply* rep);

 private:
  ServerCore& core_;
};

// The callback API's service: each call runs Service's code to its end (the
// core's journal written, for NEXT) and only then finishes the reply.
class CallbackService final : public wire::Rpclab::CallbackService {
 public:
  explicit CallbackService(ServerCore& core) : calls_(core) {}

  grpc::ServerUnaryReactor* Null(grpc::CallbackServerContext* ctx, const wire::Empty* req, wire::Empty* rep) override;
  grpc::ServerUnaryReactor* Next(grpc::CallbackServerContext* ctx, const wire::NextRequest* req,
                                 wire::NextReply* rep) override;
  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* ctx, const wire::EchoMessage* req,
                                 wire::EchoMessage* rep) override;
  grpc::ServerUnaryReactor* IsPrime(grpc::CallbackServerContext* ctx, const wire::IsPrimeRequest* req,
                                    wire::IsPrimeReply* rep) override;
  grpc::ServerUnaryReactor* Average(grpc::CallbackServerContext* ctx, const wire::Doubles* req,
                                    wire::AverageReply* rep) override;
  grpc::ServerUnaryReactor* GetRandNums(grpc::CallbackServerContext* ctx, const wire::CountRequest* req,
                                        wire::Doubles* rep) override;
  grpc::ServerUnaryReactor* LogTransform(grpc::CallbackServerContext* ctx, const wire::Doubles* req,
                                         wire::Doubles* rep) override;
  grpc::ServerUnaryReactor* GetRecord(grpc::CallbackServerContext* ctx, const wire::RecordRequest* req,
                                      wire::Record* rep) override;

 private:
  grpcx::Service calls_;  // the work of each call, shared with the sync API's service
};

}  // namespace rpclab::grpcx
