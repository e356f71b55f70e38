// gRPC C++ (unary, insecure channel): the adapter functions named in the
// transport table. make_server serves grpc through the async API (through
// the sync API with --grpc-sync-server), make_callback_server
// grpc-callback-server and grpc-callback through the callback API.
#pragma once

#include <memory>

#include "transport/transport.h"

namespace rpclab::grpcx {

// The operations its client carries (its row's), checked against the
// adapter's table of handlers when it compiles.
inline constexpr OperationSet kClientOperations = OperationSet::every();

ClientSettings client_settings(const ClientOptions& options);
std::unique_ptr<RpcClient> make_client(const ClientOptions& options);           // the sync API
std::unique_ptr<RpcClient> make_callback_client(const ClientOptions& options);  // the callback API
std::unique_ptr<RpcServer> make_server(const ServerOptions& options, ServerCore& core);
std::unique_ptr<RpcServer> make_callback_server(const ServerOptions& options, ServerCore& core);

}  // namespace rpclab::grpcx
