#include "protocols.h"

#include <stdexcept>

namespace rpclab::test {

const std::vector<Protocol>& protocols() {
  static const std::string_view kAcceptRest = "cannot accept a connection: Too many open files";
  static const std::vector<Protocol> table = {
      {"sunrpc-udp", 2015, &Forge::sunrpc_call, nullptr, nullptr, false, false, true, "", true},
      {"sunrpc-tcp", 5531, &Forge::sunrpc_record, &Forge::sunrpc_record_next, &Forge::sunrpc_record_partial, false,
       true, false, kAcceptRest, true},
      // gRPC 1.51 stops listening for good after one failed accept4()
      // (grpc/grpc#20418). Pinned so that a fixed gRPC is noticed.
      {"grpc", 7540, &Forge::grpc_connection, &Forge::grpc_next, &Forge::grpc_partial, true, false, false,
       "gRPC no longer accepts connections", false},
      {"grpc-callback-server", 7541, &Forge::grpc_connection, &Forge::grpc_next, &Forge::grpc_partial, true, false, false,
       "gRPC no longer accepts connections", false},
      {"grpc-callback", 7542, &Forge::grpc_connection, &Forge::grpc_next, &Forge::grpc_partial, true, false, false,
       "gRPC no longer accepts connections", false},
      // Abyss ends its accept loop without saying why, at times only once
      // its connections are done, when descriptors are free again: the
      // server says "cannot accept" with the cause when it can tell it.
      {"xmlrpc", 1998, &Forge::xmlrpc_http, &Forge::xmlrpc_http_next, &Forge::xmlrpc_http_partial, false, false,
       false, "xmlrpc: cannot accept a connection: ", true},
      {"xmlrpc-pstream", 2007, &Forge::xmlrpc_packet, &Forge::xmlrpc_packet_next, &Forge::xmlrpc_packet_partial,
       false, false, false, kAcceptRest, true},
      {"jsonrpc", 2010, &Forge::jsonrpc_http, &Forge::jsonrpc_http_next, &Forge::jsonrpc_http_partial, false, false,
       false, kAcceptRest, true},
      {"raw-udp", 1989, &Forge::raw_frame, nullptr, nullptr, false, false, false, "", true},
      {"raw-tcp", 1990, &Forge::raw_frame, &Forge::raw_frame_next, &Forge::raw_frame_partial, false, false, false,
       kAcceptRest, true},
  };
  return table;
}

const Protocol& protocol_of(const std::string& transport) {
  for (const Protocol& p : protocols())
    if (p.transport == transport) return p;
  throw std::invalid_argument("tests/hardening/protocols.cc has no row for transport '" + transport +
                              "': add how the abuse tests speak its protocol");
}

}  // namespace rpclab::test
