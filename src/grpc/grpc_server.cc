#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/inet.h"
#include "grpc/grpc_limits.h"
#include "grpc/grpc_service.h"
#include "grpc/grpc_transport.h"

namespace rpclab::grpcx {

grpc::Status Service::Null(grpc::ServerContext*, const wire::Empty*, wire::Empty*) {
  core_.count_null();
  return grpc::Status::OK;
}

grpc::Status Service::Next(grpc::ServerContext*, const wire::NextRequest* req, wire::NextReply* rep) {
  NextReply r = core_.next(req->client_id(), req->seq());
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

class GrpcServer : public RpcServer {
 public:
  GrpcServer(const ServerOptions& options, ServerCore& core) : service_(core) {
    // gRPC would only log "Failed to add port"; bind once ourselves first to
    // say why (in use, not local, privileged) and how to fix it.
    ::close(bind_socket(SOCK_STREAM, options.host, options.port));
    gpr_set_log_function(log_line);
    grpc::ServerBuilder builder;
    // SO_REUSEPORT (gRPC's default) would let a second server share the port
    // silently and split the calls between two ledgers.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
    builder.SetMaxSendMessageSize(kMaxMessageBytes);
    builder.AddListeningPort(format_endpoint(options.host, options.port), grpc::InsecureServerCredentials(),
                             &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    if (!server_ || port_ == 0)
      throw SetupError("gRPC could not listen on " + format_endpoint(options.host, options.port) +
                       " (is the port in use? choose another, or 0 for any)");
  }

  uint16_t port() const override { return static_cast<uint16_t>(port_); }

  void serve(const std::atomic<bool>& stop) override {
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

 private:
  Service service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace

std::unique_ptr<RpcServer> make_server(const ServerOptions& options, ServerCore& core) {
  return std::make_unique<GrpcServer>(options, core);
}

}  // namespace rpclab::grpcx
