// The grpc folder's module: its rows' functions, for the transport table
// (transport/transport_module.h).
#include "grpc/grpc_transport.h"
#include "transport/transport_module.h"

namespace rpclab::grpcx {
namespace {

constexpr ModuleRow kRows[] = {
    {"grpc", {client_settings, make_client, make_server}},
    {"grpc-callback-server", {client_settings, make_client, make_callback_server}},
    {"grpc-callback", {client_settings, make_callback_client, make_callback_server}},
};

}  // namespace
}  // namespace rpclab::grpcx

RPCLAB_TRANSPORT_MODULE(grpc, rpclab::grpcx::kRows)
