// jsonrpc, server side: libjson-rpc-cpp's JSON-RPC 2.0 server (Service:
// parsing, dispatch, parameter checks, error objects) behind libmicrohttpd,
// the HTTP server libjson-rpc-cpp's own HttpServer runs. HttpServer 0.7.0
// binds every address of the host, cannot be given a socket and does not
// say which port it got, so this file starts the daemon HttpServer would
// start, fed by rpclab's own listening socket (port 0 works; a port in use
// is a SetupError that says so), with what HttpServer leaves out:
// - the request body is capped (kMaxRequestBytes, then HTTP 413): HttpServer
//   keeps whatever a peer sends;
// - each request's state is freed when the request ends however it ends
//   (MHD_OPTION_NOTIFY_COMPLETED): HttpServer leaks it when a peer leaves
//   mid-request;
// - a parser exception (jsoncpp throws past its nesting limit) becomes a
//   JSON-RPC parse error, not a dead server.
// Threading as HttpServer: a pool of threads each polling its share of the
// connections, but with poll() (HttpServer's select() cannot see a socket
// numbered 1024 or more) and one thread per CPU, not 50. Not epoll:
// libmicrohttpd 0.9.75's epoll mode misses the end of a connection whose
// peer closes while the request body is still incomplete (a Content-Length
// longer than what came), and holds it in CLOSE_WAIT for good
// (StreamAbuse/jsonrpc: 92 to 182 of 3,000 abusive connections).
// rpclab accepts, not libmicrohttpd (MHD_USE_NO_LISTEN_SOCKET, then
// MHD_add_connection), and rests when out of descriptors as its other
// servers do (AcceptRest). libmicrohttpd's own accept, out of descriptors,
// busy-waits in a worker that has no connection ("Hit process or system
// resource limit at FIRST connection"; 0.3 to 0.8 CPU s/s in
// OutOfDescriptors), and a worker that stopped accepting no longer watches
// the listening socket whose shutdown is how MHD_stop_daemon wakes it, so
// the server hung on SIGTERM while a kept-alive client stayed idle.
// Without a listening socket MHD wakes its workers through an eventfd.
// libmicrohttpd sets TCP_NODELAY on every connection itself, and curl on
// the client does too (strace shows both): the row takes no --tcp-nodelay.
// The journal's request identity: the peer, and this server's number for
// the connection, given when libmicrohttpd says a connection started
// (MHD_OPTION_NOTIFY_CONNECTION). libjson-rpc-cpp does not hand a
// procedure the JSON-RPC request id, so it is not recorded.
#include <microhttpd.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

#include "server/accept_rest.h"
#include "common/inet.h"
#include "jsonrpc/jsonrpc_service.h"
#include "jsonrpc/jsonrpc_transport.h"
#include "jsonrpc/jsonrpc_wire.h"
#include "server/server_core.h"

namespace rpclab::jsonrpc {
namespace {

constexpr unsigned kMaxConnections = 16384;

struct Request {
  std::string body;
  bool too_large = false;
};

MHD_Result respond(MHD_Connection* connection, unsigned status, const std::string& body, const char* type) {
  MHD_Response* response = MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()),
                                                           MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_Result queued = MHD_queue_response(connection, status, response);
  MHD_destroy_response(response);
  return queued;
}

// Who sent a request on `connection`: its peer and its number.
RequestOrigin origin_of(MHD_Connection* connection) {
  RequestOrigin origin;
  if (const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) {
    const sockaddr* peer = info->client_addr;
    if (peer) origin.set_peer(peer, peer->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in));
  }
  if (const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT))
    if (auto number = reinterpret_cast<uintptr_t>(info->socket_context))
      origin.set_connection(static_cast<uint32_t>(number));
  return origin;
}

// What libmicrohttpd's threads tell the accepting one.
struct ConnectionEvents {
  std::atomic<uint32_t> started{0};  // numbers connections from 1
  std::atomic<bool> closed{false};   // a descriptor was freed since last asked
};

// Numbers each connection as libmicrohttpd starts it (the number is its
// socket context), and notes when one ends.
void on_connection(void* cls, MHD_Connection*, void** socket_context, MHD_ConnectionNotificationCode code) {
  auto* events = static_cast<ConnectionEvents*>(cls);
  if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    events->closed = true;
    return;
  }
  *socket_context = reinterpret_cast<void*>(static_cast<uintptr_t>(events->started.fetch_add(1) + 1));
}

// libmicrohttpd calls this first with the headers, then with each piece of
// the body, then once more with none left (upload_data_size 0).
MHD_Result on_request(void* cls, MHD_Connection* connection, const char* url, const char* method, const char*,
                      const char* upload_data, size_t* upload_data_size, void** state) {
  if (!*state) {
    *state = new Request;
    return MHD_YES;
  }
  Request& request = *static_cast<Request*>(*state);
  if (std::strcmp(method, "POST") != 0)
    return respond(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "POST only\n", "text/plain");
  if (std::strcmp(url, kPath) != 0)
    return respond(connection, MHD_HTTP_NOT_FOUND, "JSON-RPC is at /\n", "text/plain");
  if (*upload_data_size) {
    request.too_large |= request.body.size() + *upload_data_size > kMaxRequestBytes;
    if (!request.too_large) request.body.append(upload_data, *upload_data_size);
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (request.too_large)
    return respond(connection, MHD_HTTP_CONTENT_TOO_LARGE, "request body over 24 MiB\n", "text/plain");
  return respond(connection, MHD_HTTP_OK, static_cast<Service*>(cls)->handle(request.body, origin_of(connection)),
                 "application/json");
}

void on_completed(void*, MHD_Connection*, void** state, MHD_RequestTerminationCode) {
  delete static_cast<Request*>(*state);
  *state = nullptr;
}

void log_line(void*, const char* format, va_list args) {
  char line[512];
  std::vsnprintf(line, sizeof line, format, args);
  std::fprintf(stderr, "rpclab-server: jsonrpc: libmicrohttpd: %s%s", line,
               line[0] && line[std::strlen(line) - 1] == '\n' ? "" : "\n");
}

class JsonrpcServer : public RpcServer {
 public:
  JsonrpcServer(int listen_fd, ServerCore& core)
      : listen_fd_(listen_fd), port_(bound_port(listen_fd)), service_(core) {
    unsigned threads = std::max(2u, std::thread::hardware_concurrency());
    daemon_ = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC |
                                   MHD_USE_ERROR_LOG,
                               0, nullptr, nullptr, on_request, &service_, MHD_OPTION_EXTERNAL_LOGGER, log_line,
                               nullptr, MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT,
                               kMaxConnections, MHD_OPTION_NOTIFY_COMPLETED, on_completed, nullptr,
                               MHD_OPTION_NOTIFY_CONNECTION, on_connection, &events_, MHD_OPTION_END);
    if (!daemon_) {
      ::close(listen_fd_);
      throw SetupError("libmicrohttpd could not start serving on port " + std::to_string(port_));
    }
  }

  ~JsonrpcServer() override {
    MHD_stop_daemon(daemon_);  // closes every connection it was given
    ::close(listen_fd_);
  }

  uint16_t port() const override { return port_; }

  void serve(const std::atomic<bool>& stop) override {
    while (!stop.load()) {
      pollfd p{accept_rest_.resting() ? -1 : listen_fd_, POLLIN, 0};
      int n = ::poll(&p, 1, 100);
      if (events_.closed.exchange(false)) accept_rest_.retry_now();  // descriptors were freed
      if (n > 0 && (p.revents & POLLIN)) accept_all();
    }
  }

 private:
  // Hands every waiting connection to libmicrohttpd, which owns it from
  // then on (and closes it if it cannot take it).
  void accept_all() {
    sockaddr_storage peer{};
    socklen_t peer_len = 0;
    for (int fd; (fd = accept_rest_.accept(listen_fd_, &peer, &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;)
      MHD_add_connection(daemon_, fd, reinterpret_cast<const sockaddr*>(&peer), peer_len);
  }

  int listen_fd_;
  uint16_t port_;
  Service service_;
  ConnectionEvents events_;  // before daemon_: its threads write here
  MHD_Daemon* daemon_ = nullptr;
  AcceptRest accept_rest_{"jsonrpc"};
};

}  // namespace

std::unique_ptr<RpcServer> make_server(const ServerOptions& options, ServerCore& core) {
  int fd = bind_socket(SOCK_STREAM, options.host, options.port);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);  // accept_all() takes what waits, then returns
  return std::make_unique<JsonrpcServer>(fd, core);
}

}  // namespace rpclab::jsonrpc
