#include "jsonrpc/jsonrpc_service.h"

#include "jsonrpc/base64.h"
#include "jsonrpc/jsonrpc_wire.h"
#include "server/server_core.h"

namespace rpclab::jsonrpc {
namespace {

using ::jsonrpc::Errors;
using ::jsonrpc::JsonRpcException;
using ::jsonrpc::Procedure;

[[noreturn]] void invalid_params(const std::string& why) {
  throw JsonRpcException(Errors::ERROR_RPC_INVALID_PARAMS, why);
}

// What libjson-rpc-cpp answers for text that is not JSON, for the one
// case where its parser throws instead (nesting past jsoncpp's limit).
std::string parse_error() {
  Json::Value error(Json::objectValue);
  error["code"] = Errors::ERROR_RPC_JSON_PARSE_ERROR;
  error["message"] = Errors::GetErrorMessage(Errors::ERROR_RPC_JSON_PARSE_ERROR);
  Json::Value response(Json::objectValue);
  response["jsonrpc"] = "2.0";
  response["error"] = error;
  response["id"] = Json::nullValue;
  return Json::FastWriter().write(response);
}

// Who sent the request handle() is working on, in this thread.
thread_local const RequestOrigin* current_origin = nullptr;

}  // namespace

Service::Service(ServerCore& core)
    : AbstractServer<Service>(static_cast<HandlerSlot&>(*this), ::jsonrpc::JSONRPC_SERVER_V2), core_(core) {
  bindAndAddMethod(Procedure(kNullMethod, ::jsonrpc::PARAMS_BY_NAME, ::jsonrpc::JSON_OBJECT, nullptr),
                   &Service::null_call);
  bindAndAddMethod(Procedure(kNextMethod, ::jsonrpc::PARAMS_BY_NAME, ::jsonrpc::JSON_OBJECT, "client_id",
                             ::jsonrpc::JSON_INTEGER, "seq", ::jsonrpc::JSON_INTEGER, nullptr),
                   &Service::next);
  bindAndAddMethod(Procedure(kEchoMethod, ::jsonrpc::PARAMS_BY_NAME, ::jsonrpc::JSON_OBJECT, "payload",
                             ::jsonrpc::JSON_STRING, nullptr),
                   &Service::echo);
  bindAndAddMethod(Procedure(kIsPrimeMethod, ::jsonrpc::PARAMS_BY_NAME, ::jsonrpc::JSON_BOOLEAN, "n",
                             ::jsonrpc::JSON_INTEGER, nullptr),
                   &Service::is_prime);
  bindAndAddMethod(Procedure(kAverageMethod, ::jsonrpc::PARAMS_BY_NAME, ::jsonrpc::JSON_REAL, "values",
                             ::jsonrpc::JSON_ARRAY, nullptr),
                   &Service::average);
  bindAndAddMethod(Procedure(kGetRandNumsMethod, ::jsonrpc::PARAMS_BY_NAME, ::jsonrpc::JSON_ARRAY, "count",
                             ::jsonrpc::JSON_INTEGER, nullptr),
                   &Service::get_rand_nums);
  bindAndAddMethod(Procedure(kLogTransformMethod, ::jsonrpc::PARAMS_BY_NAME, ::jsonrpc::JSON_ARRAY, "values",
                             ::jsonrpc::JSON_ARRAY, nullptr),
                   &Service::log_transform);
  bindAndAddMethod(Procedure(kGetRecordMethod, ::jsonrpc::PARAMS_BY_NAME, ::jsonrpc::JSON_OBJECT, "id",
                             ::jsonrpc::JSON_INTEGER, "photo_bytes", ::jsonrpc::JSON_INTEGER, nullptr),
                   &Service::get_record);
}

std::string Service::handle(const std::string& request, const RequestOrigin& origin) {
  std::string response;
  current_origin = &origin;
  try {
    GetHandler()->HandleRequest(request, response);
  } catch (const std::exception&) {  // Json::Exception from jsoncpp's parser
    response = parse_error();
  }
  current_origin = nullptr;
  return response;
}

void Service::null_call(const Json::Value&, Json::Value& result) {
  core_.count_null();
  result = Json::nullValue;
}

void Service::next(const Json::Value& params, Json::Value& result) {
  uint32_t client_id = 0, seq = 0;
  if (!read_u32(params, "client_id", &client_id) || !read_u32(params, "seq", &seq))
    invalid_params("client_id and seq must be integers from 0 to 4294967295");
  try {
    result = next_reply_value(core_.next(client_id, seq, current_origin ? *current_origin : RequestOrigin{}));
  } catch (const AtMostOnceUnavailable& e) {  // not run: the client sees a failure
    throw JsonRpcException(Errors::ERROR_RPC_INTERNAL_ERROR, e.what());
  }
}

// Decoded and encoded again, as a server that works on the bytes would.
void Service::echo(const Json::Value& params, Json::Value& result) {
  std::string text = params["payload"].asString();
  if (text.size() > 4 * ((kMaxPayload + 2) / 3)) invalid_params("payload is larger than 16 MiB");
  std::optional<std::string> bytes = base64_decode(text);
  if (!bytes) invalid_params("payload is not base64 (RFC 4648, padded, no line breaks)");
  core_.count_echo();
  result = Json::Value(Json::objectValue);
  result["payload"] = base64_encode(*bytes);
}

void Service::get_record(const Json::Value& params, Json::Value& result) {
  int32_t id = 0;
  uint32_t photo_bytes = 0;
  if (!read_i32(params, "id", &id)) invalid_params("id must be an integer from -2147483648 to 2147483647");
  if (!read_u32(params, "photo_bytes", &photo_bytes)) invalid_params("photo_bytes must be an integer from 0");
  std::shared_ptr<const KiralyRecord> record;
  if (auto why = core_.get_record(id, photo_bytes, &record)) invalid_params(*why);
  result = record_value(*record);
}

}  // namespace rpclab::jsonrpc

namespace rpclab::jsonrpc {
namespace {

std::vector<double> values_param(const Json::Value& params) {
  std::vector<double> values;
  if (!read_doubles(params["values"], &values)) invalid_params("values must be an array of numbers");
  return values;
}

}  // namespace

void Service::is_prime(const Json::Value& params, Json::Value& result) {
  int32_t n = 0;
  if (!read_i32(params, "n", &n)) invalid_params("n must be an integer from -2147483648 to 2147483647");
  result = core_.is_prime(n);
}

// What the core refuses (ops/allman.h) is "invalid params", as a value of
// the wrong JSON type is.
void Service::average(const Json::Value& params, Json::Value& result) {
  std::vector<double> values = values_param(params);
  double mean = 0;
  if (auto why = core_.average(values.data(), values.size(), &mean)) invalid_params(*why);
  result = mean;
}

void Service::get_rand_nums(const Json::Value& params, Json::Value& result) {
  int32_t count = 0;
  if (!read_i32(params, "count", &count)) invalid_params("count must be an integer");
  std::vector<double> values;
  if (auto why = core_.get_rand_nums(count, &values)) invalid_params(*why);
  result = doubles_value(values);
}

void Service::log_transform(const Json::Value& params, Json::Value& result) {
  std::vector<double> values = values_param(params), logs;
  if (auto why = core_.log_transform(values.data(), values.size(), &logs)) invalid_params(*why);
  result = doubles_value(logs);
}

}  // namespace rpclab::jsonrpc
