// jsonrpc, client side: libjson-rpc-cpp's Client on its HttpClient
// connector. HttpClient keeps one curl handle, so a persistent rpclab
// handle makes its calls on one kept-alive HTTP/1.1 connection; per-call
// mode makes a new HttpClient, and so a new connection, for every call.
// The cell's timeout is HttpClient's (curl's whole-transfer timeout, in
// milliseconds). curl sets TCP_NODELAY by itself (since 7.50.2) and
// HttpClient offers no way to change it.
#include <curl/curl.h>
#include "jsonrpc/jsonrpccpp.h"

#include "common/inet.h"
#include "jsonrpc/base64.h"
#include "jsonrpc/jsonrpc_status.h"
#include "jsonrpc/jsonrpc_transport.h"
#include "jsonrpc/jsonrpc_wire.h"
#include "transport/client_handlers.h"

namespace rpclab::jsonrpc {
namespace {

// HttpClient's own default is 10 s; rpclab gives every transport rpcgen's 25 s.
constexpr int kDefaultTimeoutMs = 25000;

class JsonrpcClient : public RpcClient {
 public:
  // One call, through the handler of its operation (kHandlers, below).
  CallStatus call(Operation op, const OpArgs& args, OpReply* reply) override;

  explicit JsonrpcClient(const ClientOptions& options)
      : http_("http://" + format_endpoint(options.host, options.port) + kPath),
        client_(http_, ::jsonrpc::JSONRPC_CLIENT_V2) {
    http_.SetTimeout(options.timeout_ms.value_or(kDefaultTimeoutMs));
  }

  CallStatus null_call(const Empty&, Empty*) {
    Json::Value result;
    return call_method(kNullMethod, Json::Value(Json::objectValue), &result);
  }

  CallStatus next(const NextRequest& request, NextReply* reply) {
    Json::Value params(Json::objectValue), result;
    params["client_id"] = request.client_id;
    params["seq"] = request.seq;
    CallStatus status = call_method(kNextMethod, params, &result);
    std::string why;
    if (status.ok() && !read_next_reply(result, reply, &why))
      return CallStatus::failure(ErrorKind::kCannotCode, "libjson-rpc-cpp: " + why);
    return status;
  }

  CallStatus echo(const std::string& payload, std::string* reply) {
    Json::Value params(Json::objectValue), result;
    params["payload"] = base64_encode(payload);
    CallStatus status = call_method(kEchoMethod, params, &result);
    if (!status.ok()) return status;
    std::optional<std::string> bytes;
    if (result.isObject() && result["payload"].isString()) bytes = base64_decode(result["payload"].asString());
    if (!bytes)
      return CallStatus::failure(ErrorKind::kCannotCode, "libjson-rpc-cpp: the ECHO reply has no base64 payload");
    *reply = std::move(*bytes);
    return status;
  }

  CallStatus is_prime(int32_t n, bool* prime) {
    Json::Value params(Json::objectValue), result;
    params["n"] = n;
    CallStatus status = call_method(kIsPrimeMethod, params, &result);
    if (status.ok() && !result.isBool())
      return CallStatus::failure(ErrorKind::kCannotCode, "libjson-rpc-cpp: the isPrime reply is not true or false");
    if (status.ok()) *prime = result.asBool();
    return status;
  }

  CallStatus average(const std::vector<double>& values, double* mean) {
    Json::Value params(Json::objectValue), result;
    params["values"] = doubles_value(values);
    CallStatus status = call_method(kAverageMethod, params, &result);
    if (status.ok() && !result.isNumeric())
      return CallStatus::failure(ErrorKind::kCannotCode, "libjson-rpc-cpp: the average reply is not a number");
    if (status.ok()) *mean = result.asDouble();
    return status;
  }

  CallStatus get_rand_nums(int32_t count, std::vector<double>* values) {
    Json::Value params(Json::objectValue);
    params["count"] = count;
    return call_doubles(kGetRandNumsMethod, params, values);
  }

  CallStatus get_record(const RecordRequest& request, KiralyRecord* record) {
    Json::Value params(Json::objectValue), result;
    params["id"] = request.id;
    params["photo_bytes"] = request.photo_bytes;
    CallStatus status = call_method(kGetRecordMethod, params, &result);
    std::string why;
    if (status.ok() && !read_record(result, record, &why))
      return CallStatus::failure(ErrorKind::kCannotCode, "libjson-rpc-cpp: the getRecord reply: " + why);
    return status;
  }

  CallStatus log_transform(const std::vector<double>& values, std::vector<double>* logs) {
    Json::Value params(Json::objectValue);
    params["values"] = doubles_value(values);
    return call_doubles(kLogTransformMethod, params, logs);
  }

 private:
  CallStatus call_method(const char* method, const Json::Value& params, Json::Value* result) {
    try {
      *result = client_.CallMethod(method, params);
    } catch (const ::jsonrpc::JsonRpcException& e) {
      return from_exception(e.GetCode(), e.GetMessage());
    } catch (const std::exception& e) {  // jsoncpp's parser, past its nesting limit
      return CallStatus::failure(ErrorKind::kCannotCode, std::string("libjson-rpc-cpp: ") + e.what());
    }
    return CallStatus::success();
  }

  CallStatus call_doubles(const char* method, const Json::Value& params, std::vector<double>* out) {
    Json::Value result;
    CallStatus status = call_method(method, params, &result);
    if (status.ok() && !read_doubles(result, out))
      return CallStatus::failure(ErrorKind::kCannotCode,
                                 std::string("libjson-rpc-cpp: the ") + method + " reply is not an array of numbers");
    return status;
  }

  ::jsonrpc::HttpClient http_;
  ::jsonrpc::Client client_;
};

constexpr ClientHandler<JsonrpcClient> kHandlers[] = {
    {Operation::kNull, handle<&JsonrpcClient::null_call>},
    {Operation::kNext, handle<&JsonrpcClient::next>},
    {Operation::kEcho, handle<&JsonrpcClient::echo>},
    {Operation::kIsPrime, handle<&JsonrpcClient::is_prime>},
    {Operation::kAverage, handle<&JsonrpcClient::average>},
    {Operation::kGetRandNums, handle<&JsonrpcClient::get_rand_nums>},
    {Operation::kLogTransform, handle<&JsonrpcClient::log_transform>},
    {Operation::kGetRecord, handle<&JsonrpcClient::get_record>},
};
static_assert(operations_of(kHandlers) == kClientOperations, "the row's operations are its handlers'");

CallStatus JsonrpcClient::call(Operation op, const OpArgs& args, OpReply* reply) {
  return dispatch(kHandlers, *this, op, args, reply);
}

}  // namespace

ClientSettings client_settings(const ClientOptions& options) {
  ClientSettings s;
  s.timeout_ms = options.timeout_ms.value_or(kDefaultTimeoutMs);
  s.timeout_is_default = !options.timeout_ms;
  // libjson-rpc-cpp never resends a call. curl resends a request only when
  // a kept connection turns out to be dead before any byte of the reply.
  s.retry_timeout_ms = -1;
  s.max_payload = kMaxPayload;
  s.library = library_version() + ", curl " + curl_version_info(CURLVERSION_NOW)->version;
  return s;
}

std::unique_ptr<RpcClient> make_client(const ClientOptions& options) {
  return std::make_unique<JsonrpcClient>(options);
}

}  // namespace rpclab::jsonrpc
