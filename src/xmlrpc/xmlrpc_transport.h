// XML-RPC with xmlrpc-c: over HTTP (the C++ client on its curl transport,
// the Abyss server) and over xmlrpc-c's packet stream (the same XML framed
// on a plain TCP connection, no HTTP). The adapter functions named in the
// transport table.
#pragma once

#include <memory>

#include "transport/transport.h"

namespace rpclab::xmlrpc {

// The operations its client carries (its row's), checked against the
// adapter's table of handlers when it compiles.
inline constexpr OperationSet kClientOperations = OperationSet::every();

ClientSettings http_settings(const ClientOptions& options);
std::unique_ptr<RpcClient> make_http_client(const ClientOptions& options);
std::unique_ptr<RpcServer> make_http_server(const ServerOptions& options, ServerCore& core);

ClientSettings pstream_settings(const ClientOptions& options);
std::unique_ptr<RpcClient> make_pstream_client(const ClientOptions& options);
std::unique_ptr<RpcServer> make_pstream_server(const ServerOptions& options, ServerCore& core);

}  // namespace rpclab::xmlrpc
