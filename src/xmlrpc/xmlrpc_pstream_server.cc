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
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <list>
#include <system_error>
#include <thread>

#include <xmlrpc-c/server_pstream.hpp>

#include "core/accept_rest.h"
#include "core/inet.h"
#include "xmlrpc/xmlrpc_service.h"
#include "xmlrpc/xmlrpc_transport.h"

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

struct Connection {
  int fd;
  ConnectionInfo info;
  std::atomic<bool> done{false};
  std::thread thread;
};

// The registry goes to each connection's thread as a plain pointer
// (registryP), never as a registryPtr: xmlrpc-c 1.33 counts references
// with a lock it releases before it decrements (girmem's decref takes a
// Lock::Holder temporary), so copies made and dropped on several threads
// at once lose counts, and a registry copied per connection was freed
// under the others or threw "Decrementing ref count of unreferenced
// object" from a destructor (abort; seen in OutOfDescriptors). The server
// owns the registry and joins every connection's thread before it goes.
void serve_connection(Connection* c, const xmlrpc_c::registry* registry) {
  try {
    xmlrpc_c::serverPstreamConn server(xmlrpc_c::serverPstreamConn::constrOpt().registryP(registry).socketFd(c->fd));
    const int never = 0;  // no interruption: stop shuts the socket down
    server.run(&c->info, &never);  // until the peer closes, or the socket is shut down
  } catch (const std::exception&) {
    // Not the packet protocol, or the peer vanished mid-packet: this
    // connection is over, the server is not.
  }
  c->done = true;
}

class PstreamServer : public RpcServer {
 public:
  PstreamServer(int listen_fd, ServerCore& core, bool nodelay)
      : listen_fd_(listen_fd),
        port_(bound_port(listen_fd)),
        registry_(make_registry(core, origin_of_connection)),
        nodelay_(nodelay) {}

  ~PstreamServer() override {
    for (Connection& c : conns_) ::shutdown(c.fd, SHUT_RDWR);
    reap(true);
    ::close(listen_fd_);
  }

  uint16_t port() const override { return port_; }

  void serve(const std::atomic<bool>& stop) override {
    while (!stop.load()) {
      pollfd p{accept_rest_.resting() ? -1 : listen_fd_, POLLIN, 0};
      int n = ::poll(&p, 1, 100);
      if (reap(false)) accept_rest_.retry_now();  // descriptors were freed
      if (n > 0 && (p.revents & POLLIN)) accept_one();
    }
  }

 private:
  void accept_one() {
    sockaddr_storage peer{};
    socklen_t peer_len = 0;
    int fd = accept_rest_.accept(listen_fd_, &peer, &peer_len, SOCK_CLOEXEC);
    if (fd < 0) return;
    if (nodelay_) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    Connection& c = conns_.emplace_back();
    c.fd = fd;
    c.info.origin.set_peer(reinterpret_cast<const sockaddr*>(&peer), peer_len);
    c.info.origin.set_connection(++connections_accepted_);
    try {
      c.thread = std::thread(serve_connection, &c, registry_.get());
    } catch (const std::system_error& e) {  // no thread to be had: as if out of descriptors
      ::close(fd);
      conns_.pop_back();
      accept_rest_.rest(e.code().value());
    }
  }

  // Joins the threads that are done (all of them when `all`); true if any.
  bool reap(bool all) {
    bool any = false;
    for (auto it = conns_.begin(); it != conns_.end();) {
      if (!all && !it->done.load()) {
        ++it;
        continue;
      }
      it->thread.join();
      ::close(it->fd);
      it = conns_.erase(it);
      any = true;
    }
    return any;
  }

  int listen_fd_;
  uint16_t port_;
  xmlrpc_c::registryPtr registry_;
  bool nodelay_;
  std::list<Connection> conns_;  // a list: each thread holds its element's address
  uint32_t connections_accepted_ = 0;
  AcceptRest accept_rest_{"xmlrpc-pstream"};
};

}  // namespace

std::unique_ptr<RpcServer> make_pstream_server(const ServerOptions& options, ServerCore& core) {
  int fd = bind_socket(SOCK_STREAM, options.host, options.port);
  return std::make_unique<PstreamServer>(fd, core, options.tcp_nodelay);
}

}  // namespace rpclab::xmlrpc
