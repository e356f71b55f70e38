// xmlrpc-pstream, client side: xmlrpc-c's packet-stream client transport on
// a TCP connection rpclab opens (xmlrpc-c takes a connected socket; that is
// also where --tcp-nodelay is set). The XML is the same as over HTTP; each
// message is framed by the packet socket's ESC-PKT ... ESC-END marks.
//
// xmlrpc-c gives this transport no timeout: CallWatchdog shuts the
// connection down when a call outlives the cell's timeout. The call is
// then a timeout, and the next call on this handle opens a new connection
// (the old one cannot be read past a reply that never came).
#include <unistd.h>

#include <xmlrpc-c/client_transport.hpp>

#include "common/inet.h"
#include "xmlrpc/call_watchdog.h"
#include "xmlrpc/xmlrpc_client.h"
#include "xmlrpc/xmlrpc_transport.h"
#include "xmlrpc/xmlrpc_wire.h"

namespace rpclab::xmlrpc {
namespace {

// One connection and the xmlrpc-c objects that use it.
struct PacketConnection {
  explicit PacketConnection(int socket)
      : fd(socket), transport(xmlrpc_c::clientXmlTransport_pstream::constrOpt().fd(socket)), client(&transport) {}
  ~PacketConnection() { ::close(fd); }  // the transport closes its own copy

  int fd;
  xmlrpc_c::clientXmlTransport_pstream transport;
  xmlrpc_c::client_xml client;
};

std::unique_ptr<PacketConnection> open_connection(const ClientOptions& options, int timeout_ms) {
  std::string error;
  int err_no = 0;
  int fd = connect_tcp(resolve_ipv4(options.host, options.port), timeout_ms, options.settings.on(kTcpNodelay), &error,
                       &err_no);
  if (fd < 0) {
    ErrorKind kind = err_no == ETIMEDOUT ? ErrorKind::kTimeout : ErrorKind::kUnavailable;
    throw ConnectError(
        CallStatus::failure(kind, "cannot connect to " + format_endpoint(options.host, options.port) + ": " + error));
  }
  return std::make_unique<PacketConnection>(fd);
}

class PstreamClient : public XmlrpcClient {
 public:
  explicit PstreamClient(const ClientOptions& options)
      : options_(options), timeout_ms_(options.timeout_ms.value_or(kDefaultTimeoutMs)) {
    connection_ = open_connection(options_, timeout_ms_);
  }

 protected:
  void carry(xmlrpc_c::rpcPtr& rpc) override {
    if (!connection_) connection_ = open_connection(options_, timeout_ms_);  // after a timeout
    CallWatchdog& watchdog = CallWatchdog::instance();
    uint64_t token = watchdog.arm(connection_->fd, std::chrono::milliseconds(timeout_ms_));
    try {
      rpc->call(&connection_->client, &carriage_);
    } catch (...) {
      timed_out_ = watchdog.disarm(token);
      if (timed_out_) connection_.reset();
      throw;
    }
    if (watchdog.disarm(token)) connection_.reset();  // the reply won the race; the socket is shut all the same
  }

  CallStatus failed(const std::string& what) override {
    if (!timed_out_) return XmlrpcClient::failed(what);
    timed_out_ = false;
    return CallStatus::failure(ErrorKind::kTimeout, "no reply within " + std::to_string(timeout_ms_) +
                                                        " ms (rpclab shut the connection down: xmlrpc-c's packet "
                                                        "stream has no timeout)");
  }

 private:
  ClientOptions options_;
  int timeout_ms_;
  std::unique_ptr<PacketConnection> connection_;
  xmlrpc_c::carriageParm_pstream carriage_;
  bool timed_out_ = false;
};

}  // namespace

ClientSettings pstream_settings(const ClientOptions& options) {
  ClientSettings s;
  s.timeout_ms = options.timeout_ms.value_or(kDefaultTimeoutMs);
  s.timeout_is_default = !options.timeout_ms;
  s.retry_timeout_ms = -1;  // the packet stream never resends
  s.max_payload = kMaxPayload;
  s.library = library_version() + " (packet stream)";
  return s;
}

std::unique_ptr<RpcClient> make_pstream_client(const ClientOptions& options) {
  allow_largest_echo();
  return std::make_unique<PstreamClient>(options);
}

}  // namespace rpclab::xmlrpc
