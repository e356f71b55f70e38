// JSON-RPC 2.0 with libjson-rpc-cpp over HTTP/1.1: its client on its curl
// connector, its server behind libmicrohttpd. The adapter functions named
// in the transport table.
#pragma once

#include <memory>

#include "transport/transport.h"

namespace rpclab::jsonrpc {

ClientSettings client_settings(const ClientOptions& options);
std::unique_ptr<RpcClient> make_client(const ClientOptions& options);
std::unique_ptr<RpcServer> make_server(const ServerOptions& options, ServerCore& core);

}  // namespace rpclab::jsonrpc
