// Every transport rpclab can measure, one row each. Adding a transport is an
// adapter pair plus a row here.
#include "core/transport.h"
#include "grpc/grpc_transport.h"
#include "raw/raw_transport.h"
#include "sunrpc/sunrpc_transport.h"

namespace rpclab {

const std::vector<TransportRow>& transports() {
  static const std::vector<TransportRow> table = {
      {"sunrpc-udp", "ONC RPC over UDP: rpcgen -M stubs on libtirpc (clnt_dg / svc_dg)",
       sunrpc::udp_settings, sunrpc::make_udp_client, sunrpc::make_udp_server,
       {LibraryRetry::kAlwaysOn, "clnt_dg sends the call again every --retry-timeout until --timeout"}},
      {"sunrpc-tcp", "ONC RPC over TCP: rpcgen -M stubs on libtirpc (clnt_vc / svc_vc)",
       sunrpc::tcp_settings, sunrpc::make_tcp_client, sunrpc::make_tcp_server,
       {LibraryRetry::kNone, "clnt_vc never sends a call again; TCP retransmits segments"}},
      {"grpc", "gRPC C++ sync unary over HTTP/2, insecure channel",
       grpcx::client_settings, grpcx::make_client, grpcx::make_server,
       {LibraryRetry::kOnRequest, "service-config retryPolicy: up to 5 attempts on UNAVAILABLE, backoff 10-200 ms"}},
      {"raw-tcp", "the floor: length-prefixed frames over a plain TCP socket, no RPC library",
       raw::tcp_settings, raw::make_tcp_client, raw::make_tcp_server,
       {LibraryRetry::kNone, "no library; TCP retransmits segments"}},
      {"raw-udp", "the floor: one frame per UDP datagram, no RPC library, never retransmits",
       raw::udp_settings, raw::make_udp_client, raw::make_udp_server,
       {LibraryRetry::kNone, "no library; a lost datagram is a timeout"}},
  };
  return table;
}

const TransportRow* find_transport(std::string_view name) {
  for (const TransportRow& row : transports())
    if (row.name == name) return &row;
  return nullptr;
}

std::string transport_names() {
  std::string names;
  for (const TransportRow& row : transports()) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

}  // namespace rpclab
