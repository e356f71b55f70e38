#include <absl/synchronization/mutex.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

#include <nlohmann/json.hpp>

#include "common/inet.h"
#include "grpc/grpc_limits.h"
#include "grpc/grpc_transport.h"
#include "rpclab.grpc.pb.h"
#include "transport/client_handlers.h"

namespace rpclab::grpcx {
namespace {

// The channel's service config, built from its parts; null when it has
// none (one server, no retry: gRPC's defaults, as always).
//
// With --retry-policy library: gRPC retries UNAVAILABLE up to 5 attempts.
// gRPC C++ has no hedging (gRFC A6's hedgingPolicy is not implemented
// there), so this is the library's whole retry. UNAVAILABLE does not mean
// the call did not run, which is the point of measuring it.
//
// With a list of servers (--server A:P,B:P, ClientOptions::replicas):
// round_robin, which picks a READY subchannel per call, each attempt of a
// retried call picked anew, so a retry may go to another replica.
nlohmann::json service_config(const ClientOptions& options) {
  nlohmann::json config;
  if (options.retry_policy == RetryPolicy::kLibrary) {
    nlohmann::json retry = {{"maxAttempts", 5},
                            {"initialBackoff", "0.01s"},
                            {"maxBackoff", "0.2s"},
                            {"backoffMultiplier", 2},
                            {"retryableStatusCodes", {"UNAVAILABLE"}}};
    nlohmann::json method = {{"name", {{{"service", "rpclab.wire.Rpclab"}}}}, {"retryPolicy", retry}};
    config["methodConfig"] = nlohmann::json::array({method});
  }
  if (!options.replicas.empty())
    config["loadBalancingConfig"] = nlohmann::json::array({{{"round_robin", nlohmann::json::object()}}});
  return config;
}

// The channel's target: the one server as given (gRPC's default resolver,
// dns), or every replica for the ipv4 resolver, "ipv4:A:P,B:P", which takes
// addresses only (a host name in a list is resolved here).
std::string channel_target(const ClientOptions& options) {
  if (options.replicas.empty()) return format_endpoint(options.host, options.port);
  std::string target = "ipv4:";
  for (const Endpoint& e : options.replicas)
    target += (target.size() > 5 ? "," : "") + format_endpoint(resolve_ipv4_text(e.host), e.port);
  return target;
}

ErrorKind kind_of(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return ErrorKind::kOk;
    case grpc::StatusCode::DEADLINE_EXCEEDED: return ErrorKind::kTimeout;
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::UNIMPLEMENTED: return ErrorKind::kUnavailable;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
    case grpc::StatusCode::INVALID_ARGUMENT: return ErrorKind::kCannotCode;
    default: return ErrorKind::kOther;
  }
}

CallStatus from_grpc(const grpc::Status& status) {
  if (status.ok()) return CallStatus::success();
  std::string text = "gRPC status " + std::to_string(static_cast<int>(status.error_code()));
  if (!status.error_message().empty()) text += ": " + status.error_message();
  return CallStatus::failure(kind_of(status.error_code()), text);
}

// gRPC initialised once for the client process, as an application keeps it,
// and shut down synchronously at exit. Every grpc::Channel holds gRPC's
// library (grpc_init in its constructor, grpc_shutdown in its destructor):
// without this hold, a client with a connection per call took gRPC down
// with each channel and up again with the next, starting and joining ~6
// threads a call (strace: 1,153 clone3 for 200 calls), which a new channel
// in an application does not cost; and the last, asynchronous shutdown
// could still be ending its threads when the process exited, which once
// crashed LeakSanitizer's tracer in the sanitizer build ("Tracer caught
// signal 11"). A function-local static: its destructor runs before
// LeakSanitizer's exit check and before gRPC's own statics go.
class GrpcForTheProcess {
 public:
  GrpcForTheProcess() { grpc_init(); }
  ~GrpcForTheProcess() { grpc_shutdown_blocking(); }
  GrpcForTheProcess(const GrpcForTheProcess&) = delete;
  GrpcForTheProcess& operator=(const GrpcForTheProcess&) = delete;
};

void hold_grpc_for_the_process() { static GrpcForTheProcess held; }

class GrpcClient : public RpcClient {
 public:
  // One call, through the handler of its operation (kHandlers, below).
  CallStatus call(Operation op, const OpArgs& args, OpReply* reply) override;

  GrpcClient(const ClientOptions& options, bool callback)
      : callback_(callback), deadline_(std::chrono::milliseconds(options.timeout_ms.value_or(kDefaultDeadlineMs))) {
    hold_grpc_for_the_process();
    // Abseil's mutex deadlock detector, which Debian's abseil leaves on,
    // costs every gRPC lock a graph update (perf, issue 27): off.
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(kMaxMessageBytes);
    args.SetMaxSendMessageSize(kMaxMessageBytes);
    // Without a local pool, channels to one address share a connection
    // process-wide, and per-call mode would not make a new one.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    if (nlohmann::json config = service_config(options); !config.is_null()) args.SetServiceConfigJSON(config.dump());
    if (options.retry_policy == RetryPolicy::kLibrary) args.SetInt(GRPC_ARG_ENABLE_RETRIES, 1);
    auto channel = grpc::CreateCustomChannel(channel_target(options), grpc::InsecureChannelCredentials(), args);
    stub_ = wire::Rpclab::NewStub(channel);
  }

  CallStatus null_call(const Empty&, Empty*) {
    grpc::ClientContext ctx;
    arm(ctx);
    wire::Empty req, rep;
    return from_grpc(unary(&ctx, req, &rep, &Stub::Null, &Stub::async::Null));
  }

  CallStatus next(const NextRequest& request, NextReply* reply) {
    grpc::ClientContext ctx;
    arm(ctx);
    wire::NextRequest req;
    req.set_client_id(request.client_id);
    req.set_seq(request.seq);
    wire::NextReply rep;
    grpc::Status status = unary(&ctx, req, &rep, &Stub::Next, &Stub::async::Next);
    if (status.ok()) {
      reply->status = static_cast<NextStatus>(rep.status());
      reply->expected_seq = rep.expected_seq();
      reply->times_executed = rep.times_executed();
    }
    return from_grpc(status);
  }

  CallStatus echo(const std::string& payload, std::string* reply) {
    grpc::ClientContext ctx;
    arm(ctx);
    wire::EchoMessage req, rep;
    req.set_payload(payload.data(), payload.size());
    grpc::Status status = unary(&ctx, req, &rep, &Stub::Echo, &Stub::async::Echo);
    if (status.ok()) reply->swap(*rep.mutable_payload());
    return from_grpc(status);
  }

  CallStatus is_prime(int32_t n, bool* prime) {
    grpc::ClientContext ctx;
    arm(ctx);
    wire::IsPrimeRequest req;
    req.set_n(n);
    wire::IsPrimeReply rep;
    grpc::Status status = unary(&ctx, req, &rep, &Stub::IsPrime, &Stub::async::IsPrime);
    if (status.ok()) *prime = rep.prime();
    return from_grpc(status);
  }

  CallStatus average(const std::vector<double>& values, double* mean) {
    grpc::ClientContext ctx;
    arm(ctx);
    wire::Doubles req = doubles_of(values);
    wire::AverageReply rep;
    grpc::Status status = unary(&ctx, req, &rep, &Stub::Average, &Stub::async::Average);
    if (status.ok()) *mean = rep.mean();
    return from_grpc(status);
  }

  CallStatus get_rand_nums(int32_t count, std::vector<double>* values) {
    grpc::ClientContext ctx;
    arm(ctx);
    wire::CountRequest req;
    req.set_count(count);
    wire::Doubles rep;
    grpc::Status status = unary(&ctx, req, &rep, &Stub::GetRandNums, &Stub::async::GetRandNums);
    if (status.ok()) values->assign(rep.values().begin(), rep.values().end());
    return from_grpc(status);
  }

  CallStatus log_transform(const std::vector<double>& values, std::vector<double>* logs) {
    grpc::ClientContext ctx;
    arm(ctx);
    wire::Doubles req = doubles_of(values), rep;
    grpc::Status status = unary(&ctx, req, &rep, &Stub::LogTransform, &Stub::async::LogTransform);
    if (status.ok()) logs->assign(rep.values().begin(), rep.values().end());
    return from_grpc(status);
  }

  CallStatus get_record(const RecordRequest& request, KiralyRecord* record) {
    grpc::ClientContext ctx;
    arm(ctx);
    wire::RecordRequest req;
    req.set_id(request.id);
    req.set_photo_bytes(request.photo_bytes);
    wire::Record rep;
    grpc::Status status = unary(&ctx, req, &rep, &Stub::GetRecord, &Stub::async::GetRecord);
    if (status.ok())
      *record = {rep.id(),    rep.first_name(), rep.last_name(), rep.age(),       rep.email(),
                 rep.phone(), rep.newsletter(), rep.latitude(),  rep.longitude(), rep.photo()};
    return from_grpc(status);
  }

 private:
  using Stub = wire::Rpclab::Stub;

  // One unary call through the sync API, or through the callback API with
  // this thread waiting for its callback.
  template <typename Req, typename Rep>
  grpc::Status unary(grpc::ClientContext* ctx, const Req& req, Rep* rep,
                     grpc::Status (Stub::*sync)(grpc::ClientContext*, const Req&, Rep*),
                     void (Stub::async::*callback)(grpc::ClientContext*, const Req*, Rep*,
                                                   std::function<void(grpc::Status)>)) {
    if (!callback_) return (stub_.get()->*sync)(ctx, req, rep);
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    grpc::Status status;
    (stub_->async()->*callback)(ctx, &req, rep, [&](grpc::Status s) {
      std::lock_guard<std::mutex> lock(mutex);
      status = std::move(s);
      done = true;
      finished.notify_one();
    });
    std::unique_lock<std::mutex> lock(mutex);
    finished.wait(lock, [&] { return done; });
    return status;
  }

  static wire::Doubles doubles_of(const std::vector<double>& values) {
    wire::Doubles d;
    d.mutable_values()->Add(values.begin(), values.end());
    return d;
  }
  void arm(grpc::ClientContext& ctx) const { ctx.set_deadline(std::chrono::system_clock::now() + deadline_); }

  bool callback_;  // the callback API's calls, not the sync API's
  std::chrono::milliseconds deadline_;
  std::unique_ptr<Stub> stub_;
};

constexpr ClientHandler<GrpcClient> kHandlers[] = {
    {Operation::kNull, handle<&GrpcClient::null_call>},
    {Operation::kNext, handle<&GrpcClient::next>},
    {Operation::kEcho, handle<&GrpcClient::echo>},
    {Operation::kIsPrime, handle<&GrpcClient::is_prime>},
    {Operation::kAverage, handle<&GrpcClient::average>},
    {Operation::kGetRandNums, handle<&GrpcClient::get_rand_nums>},
    {Operation::kLogTransform, handle<&GrpcClient::log_transform>},
    {Operation::kGetRecord, handle<&GrpcClient::get_record>},
};
static_assert(operations_of(kHandlers) == kClientOperations, "the row's operations are its handlers'");

CallStatus GrpcClient::call(Operation op, const OpArgs& args, OpReply* reply) {
  return dispatch(kHandlers, *this, op, args, reply);
}

}  // namespace

ClientSettings client_settings(const ClientOptions& options) {
  ClientSettings s;
  s.timeout_ms = options.timeout_ms.value_or(kDefaultDeadlineMs);
  s.timeout_is_default = !options.timeout_ms;
  s.retry_timeout_ms = -1;
  s.max_payload = 16u << 20;
  s.library = "gRPC " + grpc::Version();
  return s;
}

std::unique_ptr<RpcClient> make_client(const ClientOptions& options) {
  return std::make_unique<GrpcClient>(options, false);
}

std::unique_ptr<RpcClient> make_callback_client(const ClientOptions& options) {
  return std::make_unique<GrpcClient>(options, true);
}

}  // namespace rpclab::grpcx
