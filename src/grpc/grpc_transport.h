// gRPC C++ (sync unary, insecure channel): the adapter functions named in the
// transport table.
#pragma once

#include <memory>

#include "transport/transport.h"

namespace rpclab::grpcx {

ClientSettings client_settings(const ClientOptions& options);
std::unique_ptr<RpcClient> make_client(const ClientOptions& options);
std::unique_ptr<RpcServer> make_server(const ServerOptions& options, ServerCore& core);

}  // namespace rpclab::grpcx
