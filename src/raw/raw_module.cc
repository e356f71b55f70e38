// The raw folder's module: its rows' functions, for the transport table
// (transport/transport_module.h).
#include "raw/raw_transport.h"
#include "transport/transport_module.h"

namespace rpclab::raw {
namespace {

constexpr ModuleRow kRows[] = {
    {"raw-udp", {udp_settings, make_udp_client, make_udp_server}},
    {"raw-tcp", {tcp_settings, make_tcp_client, make_tcp_server}},
};

}  // namespace
}  // namespace rpclab::raw

RPCLAB_TRANSPORT_MODULE(raw, rpclab::raw::kRows)
