// xmlrpc-pstream, server side: xmlrpc-c's server for one packet-stream
// connection (serverPstreamConn), on a thread per accepted connection.
// xmlrpc-c's own listener (serverPstream::runSerial) serves one connection
// at a time, so one persistent client would lock out every other; the
// loop that accepts is rpclab's, and rests when out of descriptors
// (AcceptRest). A connection whose bytes are not packets (garbage) makes
// xmlrpc-c throw; that connection ends and the server goes on. On stop,
// every connection is shut down, which ends its thread's wait.
// The journal's request identity: the peer and this server's number for
// the connection, both known at accept and handed to rpclab.next with
// each call (xmlrpc-c's callInfo); XML-RPC has no call id.
#include <sys/socket.h>
#include <unistd.h>

#include <xmlrpc-c/server_pstream.hpp>

#include "common/inet.h"
#include "xmlrpc/connection_threads.h"
#include "xmlrpc/xmlrpc_service.h"
#include "xmlrpc/xmlrpc_transport.h"
#include "server/server_core.h"

namespace rpclab::xmlrpc {
namespace {

// What xmlrpc-c passes on to the method with every call of a connection.
struct ConnectionInfo : xmlrpc_c::callInfo {
  RequestOrigin origin;
};

RequestOrigin origin_of_connection(const xmlrpc_c::callInfo* info) {
  const auto* connection = dynamic_cast<const ConnectionInfo*>(info);
  return connection ? connection->origin : RequestOrigin{};
}

// The registry goes to each connection's thread as a plain pointer
// (registryP), never as a registryPtr: xmlrpc-c 1.33 counts references
// with a lock it releases before it decrements (girmem's decref takes a
// Lock::Holder temporary), so copies made and dropped on several threads
// at once lose counts, and a registry copied per connection was freed
// under the others or threw "Decrementing ref count of unreferenced
// object" from a destructor (abort; seen in OutOfDescriptors). The server
// owns the registry and joins every connection's thread before it goes.
void serve_connection(int fd, const RequestOrigin& origin, const xmlrpc_c::registry* registry) {
  ConnectionInfo info;
  info.origin = origin;
  try {
    xmlrpc_c::serverPstreamConn server(xmlrpc_c::serverPstreamConn::constrOpt().registryP(registry).socketFd(fd));
    const int never = 0;  // no interruption: stop shuts the socket down
    server.run(&info, &never);  // until the peer closes, or the socket is shut down
  } catch (const std::exception&) {
    // Not the packet protocol, or the peer vanished mid-packet: this
    // connection is over, the server is not.
  }
}

class PstreamServer : public RpcServer {
 public:
  PstreamServer(int listen_fd, ServerCore& core, bool nodelay)
      : listen_fd_(listen_fd),
        port_(bound_port(listen_fd)),
        registry_(make_registry(core, origin_of_connection)),
        connections_(listen_fd, "xmlrpc-pstream", nodelay, [registry = registry_.get()](int fd, const RequestOrigin& o) {
          serve_connection(fd, o, registry);
        }) {}

  ~PstreamServer() override { ::close(listen_fd_); }  // serve() has returned: nothing accepts

  uint16_t port() const override { return port_; }

  void serve(const std::atomic<bool>& stop) override { connections_.serve(stop); }

 private:
  int listen_fd_;
  uint16_t port_;
  xmlrpc_c::registryPtr registry_;
  ConnectionThreads connections_;
};

}  // namespace

std::unique_ptr<RpcServer> make_pstream_server(const ServerOptions& options, ServerCore& core) {
  int fd = bind_socket(SOCK_STREAM, options.host, options.port);
  return std::make_unique<PstreamServer>(fd, core, options.settings.on(kTcpNodelay));
}

}  // namespace rpclab::xmlrpc
