// xmlrpc over HTTP, server side: xmlrpc-c's Abyss HTTP server in its own
// mode for many clients, a thread per connection (ServerRun). What rpclab
// sets, and why:
// - It binds the listening socket itself and hands it over (socketFd), so
//   port 0 works and a port in use is a SetupError that says so. Abyss has
//   no TCP_NODELAY option; with --tcp-nodelay it is set on the listening
//   socket, and Linux copies it into every connection accepted from it.
// - maxConn: Abyss serves 15 connections at once by default and leaves
//   the rest unaccepted, so 15 idle peers would lock every client out.
//   maxConnBacklog: Abyss listens again with a backlog of 15, so a burst of
//   connects overflows it and each waits out a 1 s SYN retransmission; it
//   gets the 1024 rpclab's own listeners have.
// - keepaliveMaxConn: Abyss closes a kept-alive connection after 30
//   requests by default; raised so that a persistent client keeps one
//   connection for all its calls, as with every other transport.
// - Signals stay the process's own (serverOwnsSignals off).
// - The journal's request identity: Abyss hands rpclab.next its HTTP
//   session, whose channel knows the peer's address; which of Abyss's
//   connections carried the call it does not say, and XML-RPC has no
//   call id.
// - Abyss's accept loop ends when accept() or a thread start fails (out of
//   descriptors); serve() rests until a descriptor is free, says so once
//   (AcceptRest), and runs the loop again. Connections of the ended loop
//   are served on by their threads. rpclab's own accept loop with Abyss
//   serving each connection (ServerRunChannel) does not fit: that call
//   serves one request per connection (it sets keepalivemaxconn to 1).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <xmlrpc-c/server_abyss.hpp>

#include "server/accept_rest.h"
#include "common/inet.h"
#include "xmlrpc/xmlrpc_service.h"
#include "xmlrpc/xmlrpc_transport.h"
#include "xmlrpc/xmlrpc_wire.h"
#include "server/server_core.h"

namespace rpclab::xmlrpc {
namespace {

using namespace std::chrono_literals;

constexpr unsigned kMaxConnections = 16384;
constexpr unsigned kKeepaliveMaxRequests = 1u << 30;
constexpr unsigned kListenBacklog = 1024;  // as bind_socket() listens

int listening_socket(const ServerOptions& options) {
  int fd = bind_socket(SOCK_STREAM, options.host, options.port);
  if (options.settings.on(kTcpNodelay)) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

RequestOrigin origin_of_session(const xmlrpc_c::callInfo* info) {
  RequestOrigin origin;
  const auto* abyss = dynamic_cast<const xmlrpc_c::callInfo_serverAbyss*>(info);
  void* channel = nullptr;
  if (abyss && abyss->abyssSessionP) SessionGetChannelInfo(abyss->abyssSessionP, &channel);
  // A channel on a socket handed over (socketFd) is Abyss's Unix kind.
  if (const auto* unix_channel = static_cast<const abyss_unix_chaninfo*>(channel))
    origin.set_peer(&unix_channel->peerAddr,
                    static_cast<socklen_t>(std::min(unix_channel->peerAddrLen, sizeof unix_channel->peerAddr)));
  return origin;
}

xmlrpc_c::serverAbyss::constrOpt abyss_options(const xmlrpc_c::registryPtr& registry, int fd) {
  xmlrpc_c::serverAbyss::constrOpt opt;
  opt.registryPtr(registry)
      .socketFd(fd)
      .maxConn(kMaxConnections)
      .maxConnBacklog(kListenBacklog)
      .keepaliveMaxConn(kKeepaliveMaxRequests)
      .uriPath(kPath)
      .serverOwnsSignals(false);
  return opt;
}

class AbyssServer : public RpcServer {
 public:
  AbyssServer(int listen_fd, ServerCore& core)
      : listen_fd_(listen_fd),
        port_(bound_port(listen_fd)),
        registry_(make_registry(core, origin_of_session)),
        abyss_(abyss_options(registry_, listen_fd)) {}

  ~AbyssServer() override { ::close(listen_fd_); }

  uint16_t port() const override { return port_; }

  void serve(const std::atomic<bool>& stop) override {
    std::atomic<bool> stopping{false};
    std::thread stopper([&] {
      while (!stop.load()) std::this_thread::sleep_for(50ms);
      stopping = true;
      abyss_.terminate();  // interrupts accept() and every connection's wait
    });
    while (!stopping.load()) {
      abyss_.run();  // returns on terminate(), or when accept() or a thread start failed
      if (!stopping.load()) rest_until_a_descriptor_is_free(stopping);
    }
    stopper.join();
  }

 private:
  // Abyss does not say why its loop ended (accept() or a thread start
  // failed), and it may end it only once its connections are done. A spare
  // descriptor that cannot be had says "out of descriptors"; one that can
  // says nothing, and the message says so rather than guess.
  void rest_until_a_descriptor_is_free(const std::atomic<bool>& stopping) {
    while (!stopping.load()) {
      int spare = ::dup(listen_fd_);
      if (spare >= 0) {
        ::close(spare);
        accept_rest_.rest_because(
            "Abyss's accept loop ended without saying why (out of descriptors or threads a moment ago)");
      } else {
        accept_rest_.rest(errno);
      }
      std::this_thread::sleep_for(100ms);
      if (spare >= 0) break;
    }
    accept_rest_.end();
  }

  int listen_fd_;
  uint16_t port_;
  xmlrpc_c::registryPtr registry_;
  xmlrpc_c::serverAbyss abyss_;
  AcceptRest accept_rest_{"xmlrpc"};
};

}  // namespace

std::unique_ptr<RpcServer> make_http_server(const ServerOptions& options, ServerCore& core) {
  return std::make_unique<AbyssServer>(listening_socket(options), core);
}

}  // namespace rpclab::xmlrpc
