#include <absl/synchronization/mutex.h>
#include <grpc/support/log.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
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
#include "grpc/health/v1/health.grpc.pb.h"  // generated from Debian's grpc-proto (idl/CMakeLists.txt)
#include "grpc/grpc_service.h"
#include "grpc/grpc_settings.h"
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
  NextReply r;
  try {
    r = core_.next(req->client_id(), req->seq(), origin_of(ctx));
  } catch (const AtMostOnceUnavailable& e) {  // not run: the client sees a failure
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, e.what());
  }
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
// load balancers ask.
//
// Health is answered here, not by gRPC's default health service
// (grpc::EnableDefaultHealthCheckService): that one is a callback-API
// service, and with it in the server every call of the Rpclab service cost
// about two more thread switches and 15-25 us more server CPU (issue 27,
// docs/results/speed.md, "Where the server's time went"), idle pollers of its own taking the connection's reads
// from the thread that serves them. Reflection is a sync-API service; in a
// server with a completion queue of its own (the async one) gRPC leaves
// its threads out of polling, and it costs a call nothing measurable.
namespace health = grpc::health::v1;

bool serves(const std::string& service) { return service.empty() || service == wire::Rpclab::service_full_name(); }

grpc::Status health_check(const health::HealthCheckRequest* req, health::HealthCheckResponse* rep) {
  if (!serves(req->service())) return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service");
  rep->set_status(health::HealthCheckResponse::SERVING);
  return grpc::Status::OK;
}

// Check and Watch through the sync API; Watch sends the status once (it
// never changes while the server runs) and holds the stream until the
// client leaves or the server stops, as gRPC's own service does.
class Health : public health::Health::Service {
 public:
  grpc::Status Check(grpc::ServerContext*, const health::HealthCheckRequest* req,
                     health::HealthCheckResponse* rep) override {
    return health_check(req, rep);
  }
  grpc::Status Watch(grpc::ServerContext* ctx, const health::HealthCheckRequest* req,
                     grpc::ServerWriter<health::HealthCheckResponse>* writer) override {
    health::HealthCheckResponse rep;
    rep.set_status(serves(req->service()) ? health::HealthCheckResponse::SERVING
                                          : health::HealthCheckResponse::SERVICE_UNKNOWN);
    if (!writer->Write(rep)) return grpc::Status::OK;
    while (!ctx->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return grpc::Status::CANCELLED;
  }
};

// The async server's: Check on its completion queue, Watch as above.
using AsyncHealth = health::Health::WithAsyncMethod_Check<Health>;

// The health messages' descriptors are named here, so the generated pool
// holds them and reflection describes Health/Check too. Abseil's mutex
// deadlock detector, which Debian's abseil leaves on, took 2-3% of a gRPC
// server's samples (perf, issue 27): a debugging aid, off here.
void prepare(grpc::ServerBuilder& builder, const ServerOptions& options, int* port) {
  // gRPC would only log "Failed to add port"; bind once ourselves first to
  // say why (in use, not local, privileged) and how to fix it.
  ::close(bind_socket(SOCK_STREAM, options.host, options.port));
  gpr_set_log_function(log_line);
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  health::HealthCheckRequest::descriptor();
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  // SO_REUSEPORT (gRPC's default) would let a second server share the port
  // silently and split the calls between two ledgers.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  builder.AddListeningPort(format_endpoint(options.host, options.port), grpc::InsecureServerCredentials(), port);
}

// `port` is filled in by BuildAndStart.
std::unique_ptr<grpc::Server> start(grpc::ServerBuilder& builder, const ServerOptions& options, const int* port) {
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || *port == 0)
    throw SetupError("gRPC could not listen on " + format_endpoint(options.host, options.port) +
                     " (is the port in use? choose another, or 0 for any)");
  return server;
}

// The sync API's server and the callback API's: gRPC's threads call the
// service's methods.
class GrpcServer : public RpcServer {
 public:
  GrpcServer(const ServerOptions& options, std::unique_ptr<grpc::Service> service) : service_(std::move(service)) {
    grpc::ServerBuilder builder;
    prepare(builder, options, &port_);
    builder.RegisterService(service_.get());
    builder.RegisterService(&health_);
    server_ = start(builder, options, &port_);
  }

  uint16_t port() const override { return static_cast<uint16_t>(port_); }

  void serve(const std::atomic<bool>& stop) override {
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

 private:
  std::unique_ptr<grpc::Service> service_;
  Health health_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

// The async (completion queue) API's server: each of its threads owns one
// completion queue, polls the connections itself and runs each call that
// completes on its queue to its end (Service's code, the core's journal
// written for NEXT) before it finishes the reply. A call then costs one
// thread wake-up on the server (perf stat: 1.0 context switch per call
// against 1.9-3.0 for the sync server), where the sync server's pool of
// pollers hands the call from the thread that read it to another.
//
// One thread and queue unless --grpc-server-threads asks for more: its calls
// then run one at a time, as a single-threaded server's do. More threads
// cost the ping-pong a hand-off between them and bought nothing with two
// clients on two CPUs (run /work/runs/grpc-threads-1, 12 B persistent
// loopback, p50 / server CPU per call: 1 thread 83 us / 48 us, 2 threads
// 107 / 83, 4 threads 109 / 79; 2 clients 15.6k, 14.7k, 16.2k calls/s).
// Under ASan with two threads, the first call after 1,000 connections
// arrived at once waited out its deadline in every run, where 1, 3, 4 and
// 8 threads served it (tests/hardening/stream_abuse_test.cc): gRPC 1.51's
// doing, not ours, and one more reason for one thread.
class AsyncServer : public RpcServer {
 public:
  AsyncServer(const ServerOptions& options, ServerCore& core) : calls_(core) {
    grpc::ServerBuilder builder;
    prepare(builder, options, &port_);
    builder.RegisterService(&service_);
    builder.RegisterService(&health_);
    size_t threads = static_cast<size_t>(options.settings.value_or(kServerThreads, 1));
    for (size_t i = 0; i < threads; ++i) queues_.push_back(builder.AddCompletionQueue());
    server_ = start(builder, options, &port_);
    // Each method's first call asked for; each then asks for the next.
    // (The lambdas reach the server's own members, so they are written here.)
#define RPCLAB_ASK(Req, Rep, service, Method, work)                                                          \
  new Call<Req, Rep>(                                                                                        \
      this, q,                                                                                               \
      [](AsyncServer* s, grpc::ServerCompletionQueue* q, grpc::ServerContext* ctx, Req* req,                  \
         grpc::ServerAsyncResponseWriter<Rep>* w, void* t) { s->service.Request##Method(ctx, req, w, q, q, t); }, \
      [](AsyncServer* s, grpc::ServerContext* ctx, const Req* req, Rep* rep) { return work; })
    for (auto& queue : queues_) {
      grpc::ServerCompletionQueue* q = queue.get();
      RPCLAB_ASK(wire::Empty, wire::Empty, service_, Null, s->calls_.Null(ctx, req, rep));
      RPCLAB_ASK(wire::NextRequest, wire::NextReply, service_, Next, s->calls_.Next(ctx, req, rep));
      RPCLAB_ASK(wire::EchoMessage, wire::EchoMessage, service_, Echo, s->calls_.Echo(ctx, req, rep));
      RPCLAB_ASK(wire::IsPrimeRequest, wire::IsPrimeReply, service_, IsPrime, s->calls_.IsPrime(ctx, req, rep));
      RPCLAB_ASK(wire::Doubles, wire::AverageReply, service_, Average, s->calls_.Average(ctx, req, rep));
      RPCLAB_ASK(wire::CountRequest, wire::Doubles, service_, GetRandNums, s->calls_.GetRandNums(ctx, req, rep));
      RPCLAB_ASK(wire::Doubles, wire::Doubles, service_, LogTransform, s->calls_.LogTransform(ctx, req, rep));
      RPCLAB_ASK(wire::RecordRequest, wire::Record, service_, GetRecord, s->calls_.GetRecord(ctx, req, rep));
      RPCLAB_ASK(health::HealthCheckRequest, health::HealthCheckResponse, health_, Check, health_check(req, rep));
      workers_.emplace_back([q] {
        // Named, so top, perf and the tests tell them from gRPC's own.
        pthread_setname_np(pthread_self(), "rpclab-cq");
        void* tag = nullptr;
        bool ok = false;
        while (q->Next(&tag, &ok)) static_cast<Pending*>(tag)->proceed(ok);
      });
    }
#undef RPCLAB_ASK
  }

  ~AsyncServer() override { stop(); }

  uint16_t port() const override { return static_cast<uint16_t>(port_); }

  void serve(const std::atomic<bool>& stop_requested) override {
    while (!stop_requested.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop();
  }

 private:
  using Async = wire::Rpclab::AsyncService;

  struct Pending {
    virtual ~Pending() = default;
    virtual void proceed(bool ok) = 0;
  };

  // One call of one method, from its request to its reply sent; the
  // method's next call is asked for as soon as this one has come.
  template <typename Req, typename Rep>
  class Call final : public Pending {
   public:
    using Ask = void (*)(AsyncServer*, grpc::ServerCompletionQueue*, grpc::ServerContext*, Req*,
                         grpc::ServerAsyncResponseWriter<Rep>*, void*);
    using Work = grpc::Status (*)(AsyncServer*, grpc::ServerContext*, const Req*, Rep*);

    Call(AsyncServer* server, grpc::ServerCompletionQueue* queue, Ask ask, Work work)
        : server_(server), queue_(queue), ask_(ask), work_(work), writer_(&ctx_) {
      ask_(server_, queue_, &ctx_, &req_, &writer_, this);
    }

    void proceed(bool ok) override {
      if (answered_ || !ok) {  // its reply is sent, or the server is shutting down
        delete this;
        return;
      }
      new Call(server_, queue_, ask_, work_);
      grpc::Status status = work_(server_, &ctx_, &req_, &rep_);
      answered_ = true;
      writer_.Finish(rep_, status, this);
    }

   private:
    AsyncServer* server_;
    grpc::ServerCompletionQueue* queue_;  // this call's, and its successor's
    Ask ask_;
    Work work_;
    grpc::ServerContext ctx_;
    Req req_;
    Rep rep_;
    grpc::ServerAsyncResponseWriter<Rep> writer_;
    bool answered_ = false;
  };

  void stop() {
    if (stopped_) return;
    stopped_ = true;
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    for (auto& queue : queues_) queue->Shutdown();
    for (auto& worker : workers_) worker.join();
  }

  Service calls_;
  Async service_;
  AsyncHealth health_;
  int port_ = 0;
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues_;
  std::unique_ptr<grpc::Server> server_;
  std::vector<std::thread> workers_;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<RpcServer> make_server(const ServerOptions& options, ServerCore& core) {
  if (options.settings.on(kSyncServer)) return std::make_unique<GrpcServer>(options, std::make_unique<Service>(core));
  return std::make_unique<AsyncServer>(options, core);
}

std::unique_ptr<RpcServer> make_callback_server(const ServerOptions& options, ServerCore& core) {
  return std::make_unique<GrpcServer>(options, std::make_unique<CallbackService>(core));
}

}  // namespace rpclab::grpcx
