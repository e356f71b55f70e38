// xmlrpc over HTTP, server side: xmlrpc-c's Abyss HTTP server, one
// connection at a time per thread (ServerRunChannel), on connections that
// rpclab accepts (ConnectionThreads). What rpclab sets, and why:
// - rpclab binds and accepts: port 0 works, a port in use is a SetupError
//   that says so, and out of descriptors the server rests and says so
//   (AcceptRest). Abyss's own loop (ServerRun) ends when accept() or a
//   thread start fails and does not say which; it also serves only 15
//   connections at once by default and listens with a backlog of 15.
// - Abyss has no TCP_NODELAY option; with --tcp-nodelay rpclab sets it on
//   every connection it accepts.
// - keepaliveMaxConn: Abyss closes a kept-alive connection after 30
//   requests by default; raised so that a persistent client keeps one
//   connection for all its calls, as with every other transport.
// - The journal's request identity: Abyss hands the call processor its
//   HTTP session, whose channel info is whatever the server gave with the
//   channel: here the connection's peer and rpclab's number for it.
//   XML-RPC has no call id.
// - Abyss is used through its C interface: its C++ wrapper (serverAbyss)
//   runs a connection only by a descriptor and exits the process
//   (TraceExit) when the peer is already gone.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

#include <xmlrpc-c/abyss.h>
#include <xmlrpc-c/server_abyss.h>

#include "core/inet.h"
#include "xmlrpc/connection_threads.h"
#include "xmlrpc/xmlrpc_service.h"
#include "xmlrpc/xmlrpc_transport.h"
#include "xmlrpc/xmlrpc_wire.h"

namespace rpclab::xmlrpc {
namespace {

constexpr unsigned kKeepaliveMaxRequests = 1u << 30;

// What the call processor hands rpclab.next with each call.
struct SessionInfo : xmlrpc_c::callInfo {
  RequestOrigin origin;
};

RequestOrigin origin_of_session(const xmlrpc_c::callInfo* info) {
  const auto* session = dynamic_cast<const SessionInfo*>(info);
  return session ? session->origin : RequestOrigin{};
}

// Abyss's XML-RPC handler calls this with each call's XML; the registry
// decodes it, runs the method and encodes the response (or a fault).
void process_call(xmlrpc_env* env, void* registry, const char* call_xml, size_t call_len, TSession* session,
                  xmlrpc_mem_block** response_xml) {
  try {
    SessionInfo info;
    void* channel_info = nullptr;
    SessionGetChannelInfo(session, &channel_info);
    if (channel_info) info.origin = *static_cast<const RequestOrigin*>(channel_info);
    std::string response;
    static_cast<const xmlrpc_c::registry*>(registry)->processCall(std::string(call_xml, call_len), &info, &response);
    xmlrpc_mem_block* block = XMLRPC_MEMBLOCK_NEW(char, env, 0);
    if (env->fault_occurred) return;
    XMLRPC_MEMBLOCK_APPEND(char, env, block, response.data(), response.size());
    if (env->fault_occurred) {
      XMLRPC_MEMBLOCK_FREE(char, block);
      return;
    }
    *response_xml = block;
  } catch (const std::exception& e) {
    xmlrpc_env_set_fault(env, XMLRPC_INTERNAL_ERROR, e.what());
  }
}

// Abyss's error strings are malloc'd (its xmlrpc_strfree is not public).
void free_error(const char* error) { std::free(const_cast<char*>(error)); }

void init_abyss() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* error = nullptr;
    AbyssInit(&error);
    if (error) throw std::runtime_error(std::string("xmlrpc-c: AbyssInit failed: ") + error);
  });
}

// An Abyss server that accepts nothing itself and serves the XML-RPC
// handler at kPath (404 elsewhere).
class AbyssHandler {
 public:
  explicit AbyssHandler(const xmlrpc_c::registry* registry) {
    init_abyss();
    if (!ServerCreateNoAccept(&server_, "rpclab", nullptr, nullptr))
      throw std::runtime_error("xmlrpc-c: cannot create an Abyss server");
    ServerSetKeepaliveMaxConn(&server_, kKeepaliveMaxRequests);
    xmlrpc_server_abyss_handler_parms parms{};
    parms.xml_processor = &process_call;
    parms.xml_processor_arg = const_cast<xmlrpc_c::registry*>(registry);
    parms.xml_processor_max_stack = 1 << 20;
    parms.uri_path = kPath;
    parms.chunk_response = false;
    xmlrpc_env env;
    xmlrpc_env_init(&env);
    xmlrpc_server_abyss_set_handler3(&env, &server_, &parms, XMLRPC_AHPSIZE(xml_processor_max_stack));
    bool failed = env.fault_occurred;
    std::string why = failed ? env.fault_string : "";
    xmlrpc_env_clean(&env);
    if (failed) {
      ServerFree(&server_);
      throw std::runtime_error("xmlrpc-c: cannot set the XML-RPC handler: " + why);
    }
    xmlrpc_server_abyss_set_default_handler(&server_);
  }
  ~AbyssHandler() { ServerFree(&server_); }
  AbyssHandler(const AbyssHandler&) = delete;
  AbyssHandler& operator=(const AbyssHandler&) = delete;

  // Serves HTTP requests on `fd` until the peer closes, keep-alive ends or
  // the socket is shut down.
  void serve(int fd, const RequestOrigin& origin) {
    TChannel* channel = nullptr;
    abyss_unix_chaninfo* unix_info = nullptr;
    const char* error = nullptr;
    ChannelUnixCreateFd(fd, &channel, &unix_info, &error);
    if (error) {  // the peer is gone already
      free_error(error);
      return;
    }
    std::free(unix_info);  // rpclab's origin goes with the channel instead
    RequestOrigin channel_origin = origin;
    ServerRunChannel(&server_, channel, &channel_origin, &error);
    if (error) free_error(error);
    ChannelDestroy(channel);
  }

 private:
  TServer server_{};
};

class AbyssServer : public RpcServer {
 public:
  AbyssServer(int listen_fd, ServerCore& core, bool nodelay)
      : listen_fd_(listen_fd),
        port_(bound_port(listen_fd)),
        registry_(make_registry(core, origin_of_session)),
        handler_(registry_.get()),
        connections_(listen_fd, "xmlrpc", nodelay,
                     [this](int fd, const RequestOrigin& origin) { handler_.serve(fd, origin); }) {}

  ~AbyssServer() override { ::close(listen_fd_); }  // serve() has returned: nothing accepts

  uint16_t port() const override { return port_; }

  void serve(const std::atomic<bool>& stop) override { connections_.serve(stop); }

 private:
  int listen_fd_;
  uint16_t port_;
  xmlrpc_c::registryPtr registry_;
  AbyssHandler handler_;
  ConnectionThreads connections_;  // last: its threads use handler_ and the registry until it is gone
};

}  // namespace

std::unique_ptr<RpcServer> make_http_server(const ServerOptions& options, ServerCore& core) {
  int fd = bind_socket(SOCK_STREAM, options.host, options.port);
  return std::make_unique<AbyssServer>(fd, core, options.tcp_nodelay);
}

}  // namespace rpclab::xmlrpc
