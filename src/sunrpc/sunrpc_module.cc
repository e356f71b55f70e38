// The sunrpc folder's module: its rows' functions, for the transport table
// (transport/transport_module.h).
#include "sunrpc/sunrpc_transport.h"
#include "transport/transport_module.h"

namespace rpclab::sunrpc {
namespace {

constexpr ModuleRow kRows[] = {
    {"sunrpc-udp", {udp_settings, make_udp_client, make_udp_server}},
    {"sunrpc-tcp", {tcp_settings, make_tcp_client, make_tcp_server}},
};

}  // namespace
}  // namespace rpclab::sunrpc

RPCLAB_TRANSPORT_MODULE(sunrpc, rpclab::sunrpc::kRows)
