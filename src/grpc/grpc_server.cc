#include <grpc/support/log.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/inet.h"
#include "grpc/grpc_limits.h"
#include "grpc/health/v1/health.pb.h"  // generated from Debian's grpc-proto (idl/CMakeLists.txt)
#include "grpc/grpc_service.h"
#include "grpc/grpc_transport.h"
#include "server/server_core.h"

namespace rpclab::grpcx {

grpc::Status Service::Null(grpc::ServerContext*, const wire::Empty*, wire::Empty*) {
  core_.count_null();
  return grpc::Status::OK;
}

namespace {

// What gRPC tells about a call (either API's context): the peer ("ipv4:A.B.C.D:PORT")
// and, on a retry by the client library's retry policy, the attempts made
// before (grpc-previous-rpc-attempts; absent on a first attempt, so 0).
// Not the HTTP/2 stream or the connection: gRPC's API exposes neither,
// and the peer's port stands for the connection.
RequestOrigin origin_of(const grpc::ServerContextBase* ctx) {
  RequestOrigin origin;
  if (!ctx) return origin;
  origin.set_peer_uri(ctx->peer());
  auto found = ctx->client_metadata().find("grpc-previous-rpc-attempts");
  if (found == ctx->client_metadata().end()) {
    origin.set_attempt(0);
    return origin;
  }
  unsigned value = 0;
  std::string text(found->second.data(), found->second.size());
  if (std::sscanf(text.c_str(), "%u", &value) == 1) origin.set_attempt(static_cast<uint16_t>(std::min(value, 65535u)));
  return origin;
}

}  // namespace

grpc::Status Service::Next(grpc::ServerContext* ctx, const wire::NextRequest* req, wire::NextReply* rep) {
  return next_from(ctx, req, rep);
}

grpc::Status Service::next_from(const grpc::ServerContextBase* ctx, const wire::NextRequest* req,
                                wire::NextReply* rep) {
  NextReply r = core_.next(req->client_id(), req->seq(), origin_of(ctx));
  rep->set_status(static_cast<wire::NextReply_Status>(r.status));
  rep->set_expected_seq(r.expected_seq);
  rep->set_times_executed(r.times_executed);
  return grpc::Status::OK;
}

grpc::Status Service::Echo(grpc::ServerContext*, const wire::EchoMessage* req, wire::EchoMessage* rep) {
  core_.count_echo();
  rep->set_payload(req->payload());
  return grpc::Status::OK;
}

grpc::Status Service::IsPrime(grpc::ServerContext*, const wire::IsPrimeRequest* req, wire::IsPrimeReply* rep) {
  rep->set_prime(core_.is_prime(req->n()));
  return grpc::Status::OK;
}

namespace {

// What the core refused, as gRPC says it; or OK.
grpc::Status refused(const std::optional<std::string>& why) {
  return why ? grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, *why) : grpc::Status::OK;
}

grpc::Status values_reply(const std::optional<std::string>& why, const std::vector<double>& values,
                          wire::Doubles* rep) {
  if (!why) rep->mutable_values()->Add(values.begin(), values.end());
  return refused(why);
}

}  // namespace

grpc::Status Service::Average(grpc::ServerContext*, const wire::Doubles* req, wire::AverageReply* rep) {
  double mean = 0;
  std::optional<std::string> why = core_.average(req->values().data(), req->values_size(), &mean);
  rep->set_mean(mean);
  return refused(why);
}

grpc::Status Service::GetRandNums(grpc::ServerContext*, const wire::CountRequest* req, wire::Doubles* rep) {
  std::vector<double> values;
  return values_reply(core_.get_rand_nums(req->count(), &values), values, rep);
}

grpc::Status Service::LogTransform(grpc::ServerContext*, const wire::Doubles* req, wire::Doubles* rep) {
  std::vector<double> values;
  return values_reply(core_.log_transform(req->values().data(), req->values_size(), &values), values, rep);
}

// Serialising from the core's record is the work Kiraly timed; protobuf
// copies the photo into the message, as his C++ server's did.
grpc::Status Service::GetRecord(grpc::ServerContext*, const wire::RecordRequest* req, wire::Record* rep) {
  std::shared_ptr<const KiralyRecord> record;
  if (auto why = core_.get_record(req->id(), req->photo_bytes(), &record)) return refused(why);
  const KiralyRecord& r = *record;
  rep->set_id(r.id);
  rep->set_first_name(r.first_name);
  rep->set_last_name(r.last_name);
  rep->set_age(r.age);
  rep->set_email(r.email);
  rep->set_phone(r.phone);
  rep->set_newsletter(r.newsletter);
  rep->set_latitude(r.latitude);
  rep->set_longitude(r.longitude);
  rep->set_photo(r.photo);
  return grpc::Status::OK;
}

namespace {

// A callback call answered at once: its reply is complete when this runs.
grpc::ServerUnaryReactor* finished(grpc::CallbackServerContext* ctx, const grpc::Status& status) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

}  // namespace

grpc::ServerUnaryReactor* CallbackService::Null(grpc::CallbackServerContext* ctx, const wire::Empty* req,
                                                wire::Empty* rep) {
  return finished(ctx, calls_.Null(nullptr, req, rep));
}
grpc::ServerUnaryReactor* CallbackService::Next(grpc::CallbackServerContext* ctx, const wire::NextRequest* req,
                                                wire::NextReply* rep) {
  return finished(ctx, calls_.next_from(ctx, req, rep));
}
grpc::ServerUnaryReactor* CallbackService::Echo(grpc::CallbackServerContext* ctx, const wire::EchoMessage* req,
                                                wire::EchoMessage* rep) {
  return finished(ctx, calls_.Echo(nullptr, req, rep));
}
grpc::ServerUnaryReactor* CallbackService::IsPrime(grpc::CallbackServerContext* ctx,
                                                   const wire::IsPrimeRequest* req, wire::IsPrimeReply* rep) {
  return finished(ctx, calls_.IsPrime(nullptr, req, rep));
}
grpc::ServerUnaryReactor* CallbackService::Average(grpc::CallbackServerContext* ctx, const wire::Doubles* req,
                                                   wire::AverageReply* rep) {
  return finished(ctx, calls_.Average(nullptr, req, rep));
}
grpc::ServerUnaryReactor* CallbackService::GetRandNums(grpc::CallbackServerContext* ctx,
                                                       const wire::CountRequest* req, wire::Doubles* rep) {
  return finished(ctx, calls_.GetRandNums(nullptr, req, rep));
}
grpc::ServerUnaryReactor* CallbackService::LogTransform(grpc::CallbackServerContext* ctx, const wire::Doubles* req,
                                                        wire::Doubles* rep) {
  return finished(ctx, calls_.LogTransform(nullptr, req, rep));
}
grpc::ServerUnaryReactor* CallbackService::GetRecord(grpc::CallbackServerContext* ctx,
                                                     const wire::RecordRequest* req, wire::Record* rep) {
  return finished(ctx, calls_.GetRecord(nullptr, req, rep));
}

namespace {

// gRPC 1.51 stops listening for good after one failed accept4(), as when
// the process is out of descriptors (grpc/grpc#20418): it logs "Failed
// accept4" once, and new connections then wait in the kernel's backlog,
// unanswered. Its log lines pass through here so that this one is followed
// by what it means and what to do.
void log_line(gpr_log_func_args* args) {
  std::fprintf(stderr, "%s %s:%d] %s\n", gpr_log_severity_string(args->severity), args->file, args->line,
               args->message);
  if (std::strstr(args->message, "Failed accept4"))
    std::fprintf(stderr,
                 "rpclab-server: grpc: gRPC no longer accepts connections (a gRPC bug, grpc/grpc#20418); those "
                 "already open are still served. Restart the server, and if it ran out of descriptors, raise the "
                 "limit (ulimit -n)\n");
}

// What the tools of the gRPC world expect of a server: the reflection
// service (grpc.reflection.v1alpha.ServerReflection), so `grpcurl list`
// and `grpcurl describe` work without the .proto file, and the standard
// health service (grpc.health.v1.Health), SERVING for "" and for
// rpclab.wire.Rpclab while the server runs, as grpc_health_probe and
// load balancers ask. Both are process-wide switches read by the builder;
// neither touches the Rpclab service's calls.
// The health messages' descriptors are linked in and named here, so the
// generated pool holds them and reflection describes Health/Check too.
void enable_discovery() {
  grpc::health::v1::HealthCheckRequest::descriptor();
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
}

class GrpcServer : public RpcServer {
 public:
  GrpcServer(const ServerOptions& options, std::unique_ptr<grpc::Service> service) : service_(std::move(service)) {
    // gRPC would only log "Failed to add port"; bind once ourselves first to
    // say why (in use, not local, privileged) and how to fix it.
    ::close(bind_socket(SOCK_STREAM, options.host, options.port));
    gpr_set_log_function(log_line);
    enable_discovery();
    grpc::ServerBuilder builder;
    // SO_REUSEPORT (gRPC's default) would let a second server share the port
    // silently and split the calls between two ledgers.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
    builder.SetMaxSendMessageSize(kMaxMessageBytes);
    builder.AddListeningPort(format_endpoint(options.host, options.port), grpc::InsecureServerCredentials(),
                             &port_);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    if (!server_ || port_ == 0)
      throw SetupError("gRPC could not listen on " + format_endpoint(options.host, options.port) +
                       " (is the port in use? choose another, or 0 for any)");
    server_->GetHealthCheckService()->SetServingStatus(wire::Rpclab::service_full_name(), true);
  }

  uint16_t port() const override { return static_cast<uint16_t>(port_); }

  void serve(const std::atomic<bool>& stop) override {
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

 private:
  std::unique_ptr<grpc::Service> service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace

std::unique_ptr<RpcServer> make_server(const ServerOptions& options, ServerCore& core) {
  return std::make_unique<GrpcServer>(options, std::make_unique<CallbackService>(core));
}

std::unique_ptr<RpcServer> make_sync_server(const ServerOptions& options, ServerCore& core) {
  return std::make_unique<GrpcServer>(options, std::make_unique<Service>(core));
}

}  // namespace rpclab::grpcx
