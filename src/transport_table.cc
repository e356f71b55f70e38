// Every transport rpclab can measure, one row each: its name, its traits
// (what experiments, reports and tests need to know, so that none of them
// asks by name), its adapter functions, what its library does about a
// failed call, the operations its client carries and the settings it
// takes, each on its side. The order is the display order. Adding a
// transport is its folder under src/ plus a row here.
#include "transport/transport.h"

#include <algorithm>
#include <deque>

#include "grpc/grpc_settings.h"
#include "grpc/grpc_transport.h"
#include "jsonrpc/jsonrpc_transport.h"
#include "raw/raw_transport.h"
#include "sunrpc/sunrpc_settings.h"
#include "sunrpc/sunrpc_transport.h"
#include "transport/adapter_table.h"
#include "xmlrpc/xmlrpc_transport.h"

namespace rpclab {

// Traits, field by field: carrier, role, retransmits by itself, floor,
// calibration (a tool measured beside it: sockperf, ghz), name in Levy's tables, payload note, name in
// Allman's tables (raw-tcp is his hand-rolled java.net protocol's like:
// binary, no RPC library), name in Kiraly's 2018 tables
// (his C++ gRPC, XML-RPC and JSON-RPC, each over HTTP), whether a datagram
// leads with its XID (the wire capture follows it), whether its client
// balances over several servers (--server A:P,B:P: round_robin for grpc).
namespace {

// The three gRPC rows differ only in the API each side uses.
constexpr LibraryRetryTrait kGrpcRetry = {
    LibraryRetry::kOnRequest, "service-config retryPolicy: up to 5 attempts on UNAVAILABLE, backoff 10-200 ms"};

// The HTTP/1.1 rows' libraries never resend, but libcurl under them does,
// always: a request whose kept-alive connection closes before any byte of
// the reply goes again on a new one (lib/transfer.c, Curl_retry_request;
// CURLOPT_FORBID_RETRY_ON_REUSE, its off switch, is curl 8.16's, Debian 12
// has 7.88). tests/rpc/curl_resend_test.cc shows it on both clients.
constexpr LibraryRetryTrait kCurlResend = {
    LibraryRetry::kAlwaysOn,
    "libcurl sends a request again on a new connection, up to 5 times, when a kept-alive one closes before any byte "
    "of the reply; TCP retransmits segments"};

std::vector<TransportRow>& table() {
  static std::vector<TransportRow> table = {
      {"sunrpc-udp", "ONC RPC over UDP: rpcgen -M stubs on libtirpc (clnt_dg / svc_dg)",
       {Carrier::kDatagram, Role::kRpc, true, "raw-udp", "", "Sun (udp)",
        "libtirpc's default buffer is 8800 bytes; --udp-bufsize 65536 on client and server carries up to 65460", "",
        "", true},
       "sunrpc",
       {LibraryRetry::kAlwaysOn, "clnt_dg sends the call again every --retry-timeout until --timeout"},
       sunrpc::kClientOperations, settings_list(sunrpc::kUdpSettings)},
      {"sunrpc-tcp", "ONC RPC over TCP: rpcgen -M stubs on libtirpc (clnt_vc / svc_vc)",
       {Carrier::kStream, Role::kRpc, false, "raw-tcp", "", "Sun (tcp)", ""},
       "sunrpc",
       {LibraryRetry::kNone, "clnt_vc never sends a call again; TCP retransmits segments"},
       sunrpc::kClientOperations, settings_list(sunrpc::kTcpSettings)},
      {"grpc", "gRPC C++ unary over HTTP/2, insecure channel: async-API server (one completion-queue thread), sync client",
       {Carrier::kStream, Role::kRpc, false, "raw-tcp", "ghz", "", "", "", "gRPC", false, true, "h2"},
       "grpc",
       kGrpcRetry,
       grpcx::kClientOperations, settings_list(grpcx::kSettings)},
      {"grpc-callback-server", "gRPC C++ unary over HTTP/2, insecure channel: callback-API server, sync client",
       {Carrier::kStream, Role::kRpc, false, "raw-tcp", "", "", "", "", "", false, false, "h2"},
       "grpc",
       kGrpcRetry,
       grpcx::kClientOperations, {}},
      {"grpc-callback", "gRPC C++ unary over HTTP/2, insecure channel: callback-API server and client",
       {Carrier::kStream, Role::kRpc, false, "raw-tcp", "", "", "", "", "", false, false, "h2"},
       "grpc",
       kGrpcRetry,
       grpcx::kClientOperations, {}},
      {"xmlrpc", "XML-RPC over HTTP/1.1: xmlrpc-c, C++ client on its curl transport, Abyss server",
       {Carrier::kStream, Role::kRpc, false, "raw-tcp", "", "", "", "XML-RPC", "XML-RPC", false, false, "http/1.1"},
       "xmlrpc",
       kCurlResend,
       xmlrpc::kClientOperations, {{&kTcpNodelay, Side::kServer}}},  // curl sets it on the client
      {"xmlrpc-pstream", "XML-RPC over xmlrpc-c's packet stream: the same XML, no HTTP",
       {Carrier::kStream, Role::kRpc, false, "raw-tcp", "", "", ""},
       "xmlrpc",
       {LibraryRetry::kNone, "xmlrpc-c's packet stream never sends a call again; TCP retransmits segments"},
       xmlrpc::kClientOperations, {{&kTcpNodelay, Side::kBoth}}},
      {"jsonrpc", "JSON-RPC 2.0 over HTTP/1.1: libjson-rpc-cpp, curl client, libmicrohttpd server",
       {Carrier::kStream, Role::kRpc, false, "raw-tcp", "", "", "", "", "JSON-RPC", false, false, "http/1.1"},
       "jsonrpc",
       kCurlResend,
       jsonrpc::kClientOperations, {}},
      {"raw-udp", "the floor: one frame per UDP datagram, no RPC library, never retransmits",
       {Carrier::kDatagram, Role::kFloor, false, "raw-tcp", "sockperf-udp", "", ""},
       "raw",
       {LibraryRetry::kNone, "no library; a lost datagram is a timeout"},
       raw::kClientOperations, {}},
      {"raw-tcp", "the floor: length-prefixed frames over a plain TCP socket, no RPC library",
       {Carrier::kStream, Role::kFloor, false, "raw-tcp", "sockperf-tcp", "", "", "java.net"},
       "raw",
       {LibraryRetry::kNone, "no library; TCP retransmits segments"},
       raw::kClientOperations, {{&kTcpNodelay, Side::kBoth}}},
  };
  return table;
}

// Adapters' manifests, kept where their rows' views can point into them.
std::deque<AdapterManifest>& manifests() {
  static std::deque<AdapterManifest> kept;
  return kept;
}

std::vector<SkippedAdapter>& skipped() {
  static std::vector<SkippedAdapter> list;
  return list;
}

const AdapterManifest& manifest_of(const std::string& transport) {
  for (const AdapterManifest& m : manifests())
    if (m.name == transport) return m;
  throw SetupError("transport " + transport + " is not an adapter");
}

// What the harness writes of an adapter's client: what its manifest says.
ClientSettings adapter_client_settings(const ClientOptions& o) {
  const AdapterManifest& m = manifest_of(o.transport);
  ClientSettings s;
  s.timeout_ms = o.timeout_ms.value_or(m.default_timeout_ms);
  s.timeout_is_default = !o.timeout_ms;
  s.max_payload = m.max_payload;
  s.library = m.library;
  return s;
}

// Its programs are the adapter's own, run by the harness; nothing of it
// runs in an rpclab process.
[[noreturn]] void not_in_process(const std::string& transport) {
  throw SetupError("transport " + transport + " is an adapter: the harness runs its own programs (" +
                   manifest_of(transport).file + "), not rpclab-client or rpclab-server");
}
std::unique_ptr<RpcClient> adapter_client(const ClientOptions& o) { not_in_process(o.transport); }
std::unique_ptr<RpcServer> adapter_server(const ServerOptions& o, ServerCore&) { not_in_process(o.transport); }

TransportRow adapter_row(const AdapterManifest& m) {
  TransportRow row{m.name, m.summary,
                   {m.datagram ? Carrier::kDatagram : Carrier::kStream, Role::kRpc,
                    m.library_retry == LibraryRetry::kAlwaysOn, m.datagram ? "raw-udp" : "raw-tcp", "", "", "", "",
                    "", m.wire_xid},
                   "", {m.library_retry, m.library_retry_what}, m.operations, {}};
  static constexpr TransportFunctions kAdapterFunctions = {adapter_client_settings, adapter_client, adapter_server};
  row.adapter = &m;
  row.adapter_functions = &kAdapterFunctions;
  return row;
}

}  // namespace

const std::vector<TransportRow>& transports() { return table(); }

const TransportFunctions& TransportRow::functions() const {
  if (adapter_functions) return *adapter_functions;
  const TransportModule& m = transport_module(module);
  for (size_t i = 0; i < m.count; ++i)
    if (m.rows[i].transport == name) return m.rows[i].functions;
  throw SetupError("transport module " + std::string(module) + " has no row " + std::string(name));
}

void add_adapter_rows(const AdapterScan& scan) {
  for (const AdapterManifest& m : scan.ready) {
    auto& gone = skipped();  // built since it was listed as skipped
    gone.erase(std::remove_if(gone.begin(), gone.end(), [&](const SkippedAdapter& s) { return s.name == m.name; }),
               gone.end());
    if (find_transport(m.name) && find_transport(m.name)->adapter == nullptr) {
      // rpclab's own row keeps the name; the adapter is left out, and said so.
      AdapterManifest bad;  // only where it is: manifest_invalid() (adapter_scan.h)
      bad.file = m.file;
      bad.dir = m.dir;
      skipped().push_back({m.name, "its manifest is not valid: " + m.file + ": field 'name': " + m.name +
                                       " is a transport rpclab already has", bad});
      continue;
    }
    if (find_transport(m.name))
      throw AdapterManifestError(m.file + ": field 'name': " + m.name + " is a transport rpclab already has");
    manifests().push_back(m);
    table().push_back(adapter_row(manifests().back()));
  }
  for (const SkippedAdapter& s : scan.skipped) skipped().push_back(s);
}

const std::vector<SkippedAdapter>& skipped_adapters() { return skipped(); }

std::vector<std::string> adapter_row_names(bool stream_only) {
  std::vector<std::string> names;
  for (const TransportRow& row : transports())
    if (row.adapter && !(stream_only && row.datagram())) names.emplace_back(row.name);
  return names;
}

std::vector<std::string> adapters_left_out() {
  std::vector<std::string> lines;
  for (const SkippedAdapter& s : skipped()) lines.push_back("adapter " + s.name + " skipped: " + s.reason);
  return lines;
}

const TransportRow* find_transport(std::string_view name) {
  for (const TransportRow& row : transports())
    if (row.name == name) return &row;
  return nullptr;
}

std::string transport_names() {
  std::string names;
  for (const TransportRow& row : transports()) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  for (size_t i = 0; i < skipped().size(); ++i)
    names += (i ? "; " : "; skipped adapters: ") + skipped()[i].name + " (" + skipped()[i].reason + ")";
  return names;
}

std::string operation_refusal(const TransportRow& row, Operation op) {
  if (row.carries(op)) return "";
  std::string takers;
  for (const TransportRow& other : transports())
    if (other.carries(op)) takers += (takers.empty() ? "" : ", ") + std::string(other.name);
  return "transport " + std::string(row.name) + " does not carry operation " + std::string(operation_name(op)) +
         " (" + (takers.empty() ? "no transport does" : "these do: " + takers) + ")";
}

std::string server_list_refusal(const TransportRow& row, size_t count, const std::string& given) {
  if (count <= 1 || row.traits.balances) return "";
  std::string takers;
  for (const TransportRow& other : transports())
    if (other.traits.balances) takers += (takers.empty() ? "" : ", ") + std::string(other.name);
  return "--server: " + std::string(row.name) + " takes one HOST:PORT; " +
         (takers.empty() ? "no transport balances over several" : "only " + takers + " balances over several") +
         " (a list was given: " + given + ")";
}

}  // namespace rpclab
