// What a libjson-rpc-cpp call came back with, on the one ErrorKind enum.
// The HTTP connector reports curl's failure as ERROR_CLIENT_CONNECTOR with
// curl's code in its text ("libcurl error: 28 -> Operation timed out"); a
// JSON-RPC error object keeps its code.
#pragma once

#include <string>

#include "transport/outcome.h"

namespace rpclab::jsonrpc {

CallStatus from_exception(int code, const std::string& message);

}  // namespace rpclab::jsonrpc
