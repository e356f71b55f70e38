// When a client's handle is made: one kept for every call (made by the
// first call, made again after the connection broke), or a new one for
// each call. Transport-neutral: it only decides when to call the row's
// make_client.
#pragma once

#include <memory>

#include "transport/transport.h"

namespace rpclab {

// A client of `options.transport` in the requested connection mode; throws
// SetupError for an unknown transport or a host that does not resolve.
std::unique_ptr<RpcClient> connect_client(const ClientOptions& options);

}  // namespace rpclab
