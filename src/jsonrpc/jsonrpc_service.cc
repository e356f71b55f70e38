#include "jsonrpc/jsonrpc_service.h"

#include "jsonrpc/base64.h"
#include "jsonrpc/jsonrpc_wire.h"

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
  result = next_reply_value(core_.next(client_id, seq, current_origin ? *current_origin : RequestOrigin{}));
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

}  // namespace rpclab::jsonrpc
