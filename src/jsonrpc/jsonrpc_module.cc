// The jsonrpc folder's module: its rows' functions, for the transport table
// (transport/transport_module.h).
#include "jsonrpc/jsonrpc_transport.h"
#include "transport/transport_module.h"

namespace rpclab::jsonrpc {
namespace {

constexpr ModuleRow kRows[] = {
    {"jsonrpc", {client_settings, make_client, make_server}},
};

}  // namespace
}  // namespace rpclab::jsonrpc

RPCLAB_TRANSPORT_MODULE(jsonrpc, rpclab::jsonrpc::kRows)
