// A transport folder's functions, gathered as one module: the three
// functions each of its rows needs (a client's settings, a client, a
// server). The transport table names a row's folder; where the functions
// come from is the program's choice, made when it links:
//   src/transport_modules_linked.cc  the folders linked in (rpclab, the
//                                    tests): every folder's module at once;
//   src/transport_modules_loaded.cc  rpclab-client and rpclab-server: the
//                                    folder's shared object, loaded the first
//                                    time a row of it is used.
// Why two: a program linked with every RPC stack loads 105 libraries and
// spends about 55 ms in the dynamic linker before main (perf: do_lookup_x),
// and the speed experiment starts a client for every trial; loading only
// the stack a run uses makes a sunrpc client start in a few milliseconds.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

namespace rpclab {

class ServerCore;
class RpcClient;
class RpcServer;
struct ClientOptions;
struct ServerOptions;
struct ClientSettings;

struct TransportFunctions {
  ClientSettings (*client_settings)(const ClientOptions&);
  std::unique_ptr<RpcClient> (*make_client)(const ClientOptions&);               // ConnectError
  std::unique_ptr<RpcServer> (*make_server)(const ServerOptions&, ServerCore&);  // SetupError
};

struct ModuleRow {
  std::string_view transport;  // the row's name in the transport table
  TransportFunctions functions;
};

// What a folder's module exports, under the C name rpclab_module_<folder>.
struct TransportModule {
  const ModuleRow* rows;
  size_t count;
};

// The module of the folder `folder` (sunrpc, grpc, ...). Throws SetupError
// when it cannot be found or loaded, saying where it looked.
const TransportModule& transport_module(std::string_view folder);

}  // namespace rpclab

// Defines the module of folder NAME from an array of ModuleRow.
#define RPCLAB_TRANSPORT_MODULE(NAME, ROWS) \
  extern "C" const ::rpclab::TransportModule rpclab_module_##NAME = {ROWS, sizeof(ROWS) / sizeof((ROWS)[0])};
