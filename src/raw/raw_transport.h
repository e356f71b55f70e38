// The floor: rpclab's three procedures as length-prefixed frames
// (raw_frame.h) over plain TCP and UDP sockets, no RPC library. What an RPC
// system costs is read against this. The adapter functions named in the
// transport table.
#pragma once

#include <memory>

#include "transport/transport.h"

namespace rpclab::raw {

// The operations its client carries (its row's), checked against the
// adapter's table of handlers when it compiles.
inline constexpr OperationSet kClientOperations = OperationSet::every();

// No library imposes one; rpcgen's 25 s, so every transport waits as long.
inline constexpr int kDefaultTimeoutMs = 25000;

ClientSettings tcp_settings(const ClientOptions& options);
ClientSettings udp_settings(const ClientOptions& options);
std::unique_ptr<RpcClient> make_tcp_client(const ClientOptions& options);
std::unique_ptr<RpcClient> make_udp_client(const ClientOptions& options);
std::unique_ptr<RpcServer> make_tcp_server(const ServerOptions& options, ServerCore& core);
std::unique_ptr<RpcServer> make_udp_server(const ServerOptions& options, ServerCore& core);

}  // namespace rpclab::raw
