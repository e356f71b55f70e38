// The xmlrpc folder's module: its rows' functions, for the transport table
// (transport/transport_module.h).
#include "xmlrpc/xmlrpc_transport.h"
#include "transport/transport_module.h"

namespace rpclab::xmlrpc {
namespace {

constexpr ModuleRow kRows[] = {
    {"xmlrpc", {http_settings, make_http_client, make_http_server}},
    {"xmlrpc-pstream", {pstream_settings, make_pstream_client, make_pstream_server}},
};

}  // namespace
}  // namespace rpclab::xmlrpc

RPCLAB_TRANSPORT_MODULE(xmlrpc, rpclab::xmlrpc::kRows)
