#include "jsonrpc/jsonrpc_status.h"

#include <curl/curl.h>
#include "jsonrpc/jsonrpccpp.h"

#include <cstdlib>

namespace rpclab::jsonrpc {
namespace {

using ::jsonrpc::Errors;

ErrorKind kind_of_curl(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT: return ErrorKind::kTimeout;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST: return ErrorKind::kUnavailable;
    case CURLE_SEND_ERROR: return ErrorKind::kCannotSend;
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE: return ErrorKind::kCannotReceive;
    default: return ErrorKind::kOther;
  }
}

// "libcurl error: 28 -> ..." -> 28; -1 when the text has no code.
int curl_code_in(const std::string& message) {
  const std::string prefix = "libcurl error: ";
  size_t at = message.find(prefix);
  if (at == std::string::npos) return -1;
  return std::atoi(message.c_str() + at + prefix.size());
}

ErrorKind kind_of(int code, const std::string& message) {
  if (code == Errors::ERROR_CLIENT_CONNECTOR) {
    int curl = curl_code_in(message);
    return curl < 0 ? ErrorKind::kOther : kind_of_curl(static_cast<CURLcode>(curl));
  }
  if (code == Errors::ERROR_RPC_METHOD_NOT_FOUND) return ErrorKind::kUnavailable;
  if (code == Errors::ERROR_RPC_JSON_PARSE_ERROR || code == Errors::ERROR_RPC_INVALID_REQUEST ||
      code == Errors::ERROR_RPC_INVALID_PARAMS || code == Errors::ERROR_CLIENT_INVALID_RESPONSE)
    return ErrorKind::kCannotCode;
  return ErrorKind::kOther;  // ERROR_RPC_INTERNAL_ERROR is also an HTTP status other than 200
}

}  // namespace

CallStatus from_exception(int code, const std::string& message) {
  return CallStatus::failure(kind_of(code, message),
                             "libjson-rpc-cpp error " + std::to_string(code) + ": " + message);
}

}  // namespace rpclab::jsonrpc
