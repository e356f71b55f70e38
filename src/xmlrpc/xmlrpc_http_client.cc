// xmlrpc over HTTP, client side: xmlrpc-c's C++ client on its curl
// transport. One transport object keeps one curl session, so a persistent
// handle makes its calls on one kept-alive HTTP/1.1 connection; per-call
// mode makes a new transport, and so a new connection, for every call.
// curl sets TCP_NODELAY by itself (since 7.50.2) and xmlrpc-c offers no way
// to change it, so the row takes no client --tcp-nodelay.
#include <curl/curl.h>

#include "common/inet.h"
#include "xmlrpc/xmlrpc_client.h"
#include "xmlrpc/xmlrpc_transport.h"
#include "xmlrpc/xmlrpc_wire.h"

namespace rpclab::xmlrpc {
namespace {

// xmlrpc-c 1.33 hands curl its timeout in whole seconds, rounded up
// (CURLOPT_TIMEOUT): this is the time a call really gets.
int effective_timeout_ms(const ClientOptions& options) {
  int ms = options.timeout_ms.value_or(kDefaultTimeoutMs);
  return (ms + 999) / 1000 * 1000;
}

xmlrpc_c::clientXmlTransport_curl::constrOpt curl_options(const ClientOptions& options) {
  xmlrpc_c::clientXmlTransport_curl::constrOpt opt;
  opt.timeout(static_cast<unsigned>(effective_timeout_ms(options)));
  return opt;
}

class HttpClient : public XmlrpcClient {
 public:
  explicit HttpClient(const ClientOptions& options)
      : transport_(curl_options(options)),
        client_(&transport_),
        carriage_("http://" + format_endpoint(options.host, options.port) + kPath) {}

 protected:
  void carry(xmlrpc_c::rpcPtr& rpc) override { rpc->call(&client_, &carriage_); }

 private:
  xmlrpc_c::clientXmlTransport_curl transport_;
  xmlrpc_c::client_xml client_;
  xmlrpc_c::carriageParm_curl0 carriage_;
};

}  // namespace

ClientSettings http_settings(const ClientOptions& options) {
  ClientSettings s;
  s.timeout_ms = effective_timeout_ms(options);
  s.timeout_is_default = !options.timeout_ms;
  // xmlrpc-c never resends a call. curl resends a request only when a kept
  // connection turns out to be dead before any byte of the reply came back.
  s.retry_timeout_ms = -1;
  s.max_payload = kMaxPayload;
  s.library = library_version() + ", curl " + curl_version_info(CURLVERSION_NOW)->version;
  return s;
}

std::unique_ptr<RpcClient> make_http_client(const ClientOptions& options) {
  allow_largest_echo();
  return std::make_unique<HttpClient>(options);
}

}  // namespace rpclab::xmlrpc
