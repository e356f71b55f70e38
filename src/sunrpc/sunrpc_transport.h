// Sun RPC (rpcgen stubs on libtirpc) over UDP and TCP: the adapter functions
// named in the transport table.
#pragma once

#include <memory>

#include "transport/transport.h"

namespace rpclab::sunrpc {

// The operations its client carries (its row's), checked against the
// adapter's table of handlers when it compiles.
inline constexpr OperationSet kClientOperations = OperationSet::every();

ClientSettings udp_settings(const ClientOptions& options);
ClientSettings tcp_settings(const ClientOptions& options);
std::unique_ptr<RpcClient> make_udp_client(const ClientOptions& options);
std::unique_ptr<RpcClient> make_tcp_client(const ClientOptions& options);
std::unique_ptr<RpcServer> make_udp_server(const ServerOptions& options, ServerCore& core);
std::unique_ptr<RpcServer> make_tcp_server(const ServerOptions& options, ServerCore& core);

// Largest ECHO payload one UDP message of `bufsize` bytes carries (0 = the
// library default): the buffer, capped by the IP datagram limit, minus the
// call header, rounded down to XDR's 4-byte unit.
size_t udp_max_payload(size_t bufsize);

}  // namespace rpclab::sunrpc
