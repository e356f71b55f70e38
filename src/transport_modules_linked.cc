// The transport modules of a program linked with every RPC stack (rpclab,
// the tests): each folder's module is in the program already
// (transport/transport_module.h says why rpclab-client and rpclab-server
// load theirs instead).
#include <string>

#include "common/setup_error.h"
#include "transport/transport_module.h"

extern "C" const rpclab::TransportModule rpclab_module_sunrpc, rpclab_module_grpc, rpclab_module_xmlrpc,
    rpclab_module_jsonrpc, rpclab_module_raw;

namespace rpclab {

const TransportModule& transport_module(std::string_view folder) {
  struct Linked {
    std::string_view folder;
    const TransportModule* module;
  };
  static constexpr Linked kLinked[] = {
      {"sunrpc", &rpclab_module_sunrpc}, {"grpc", &rpclab_module_grpc},   {"xmlrpc", &rpclab_module_xmlrpc},
      {"jsonrpc", &rpclab_module_jsonrpc}, {"raw", &rpclab_module_raw},
  };
  for (const Linked& l : kLinked)
    if (l.folder == folder) return *l.module;
  throw SetupError("no transport module " + std::string(folder) + " is linked into this program");
}

}  // namespace rpclab
