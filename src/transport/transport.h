// src/transport/: the one interface between experiments and RPC systems.
// A transport is a small adapter that makes one call (RpcClient) or serves
// calls into the shared ServerCore (RpcServer), and one row of the table
// in src/transport_table.cc; experiments only ever see these types: the
// row, its traits and settings, the outcome of a call, retry policies. What a call
// sends and gets back is an operation's (ops/operation.h).
// May include common/ and ops/; never client/, server/ or an adapter (each
// adapter includes this, and the table lists the adapters).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/inet.h"
#include "common/setup_error.h"
#include "transport/adapter_manifest.h"
#include "ops/operation.h"
#include "transport/outcome.h"
#include "transport/retry_policy.h"
#include "transport/settings.h"
#include "transport/transport_module.h"

namespace rpclab {

class ServerCore;  // server/server_core.h: what every transport's server calls into

enum class ConnectMode { kPersistent, kPerCall };
std::string_view connect_mode_name(ConnectMode mode);
std::optional<ConnectMode> parse_connect_mode(std::string_view name);

struct ClientOptions {
  std::string transport;
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  // --server A:P,B:P,...: every replica of the list, in order (host and
  // port are the first), for a row whose traits balance; empty for one
  // server, the only case the other rows take.
  std::vector<Endpoint> replicas;
  std::optional<int> timeout_ms;         // total time per call; unset = library default
  RetryPolicy retry_policy = RetryPolicy::kNone;  // library: the transport's own (grpc: service-config retryPolicy)
  AppRetryOptions app_retry;             // with RetryPolicy::kApp
  ConnectMode connect = ConnectMode::kPersistent;
  // Its transport's own settings (settings.h), those its row takes on the
  // client side: the retransmit interval, TCP_NODELAY, ...
  TransportSettings settings;
};

struct ServerOptions {
  std::string transport;
  std::string host = "127.0.0.1";
  uint16_t port = 0;                     // 0 = any free port; the server reports it
  // Its transport's own settings, those its row takes on the server side:
  // a reply cache, TCP_NODELAY, ...
  TransportSettings settings;
};

// What a client will really use, defaults resolved, for the records.
struct ClientSettings {
  int timeout_ms = 0;
  bool timeout_is_default = true;
  int retry_timeout_ms = -1;             // -1: the transport never retransmits by itself
  bool retry_is_default = true;
  size_t max_payload = 0;                // largest ECHO payload that fits one call
  std::string library;                   // e.g. "libtirpc 1.3.3+ds-1"
};

class RpcClient {
 public:
  virtual ~RpcClient() = default;
  // One call of `op`: sends `args` (the shape its row's setup makes) and,
  // on success, leaves the answer in `reply`. A call the server refuses
  // (bad input) is kCannotCode. An adapter answers through its table of
  // handlers (transport/client_handlers.h); an operation its row does not
  // carry is refused before any call (the programs ask the row), and is
  // kOther should it get here.
  virtual CallStatus call(Operation op, const OpArgs& args, OpReply* reply) = 0;
};

// A typed call, for tests and tools: typed_call(*client, Operation::kEcho,
// std::string("hi"), &reply) with a std::string reply; without a reply
// for an operation whose answer does not matter (NULL).
template <typename Reply>
CallStatus typed_call(RpcClient& client, Operation op, OpArgs args, Reply* reply) {
  OpReply out;
  CallStatus status = client.call(op, args, &out);
  if (status.ok() && std::holds_alternative<Reply>(out)) *reply = std::move(std::get<Reply>(out));
  return status;
}
inline CallStatus typed_call(RpcClient& client, Operation op, OpArgs args) {
  OpReply out;
  return client.call(op, args, &out);
}

class RpcServer {
 public:
  virtual ~RpcServer() = default;
  virtual uint16_t port() const = 0;
  // Serves until `stop` becomes true, checking it at least every 100 ms.
  virtual void serve(const std::atomic<bool>& stop) = 0;
};

// Creating a client failed in a way a call would report (refused, timed out):
// per-call mode turns it into that call's outcome.
class ConnectError : public std::runtime_error {
 public:
  explicit ConnectError(CallStatus status)
      : std::runtime_error(status.detail), status_(std::move(status)) {}
  const CallStatus& status() const { return status_; }

 private:
  CallStatus status_;
};

enum class Carrier { kDatagram, kStream };
// An RPC system under test, or a floor: no RPC library, what the others
// are measured against.
enum class Role { kRpc, kFloor };

// What experiments, reports and tests need to know about a transport, so
// that none of them asks for it by name.
struct TransportTraits {
  Carrier carrier;
  Role role;
  bool retransmits;                // the library resends a call by itself
  std::string_view floor;          // the row speed compares it with; a floor names the next floor
  std::string_view calibration;    // a tool measured beside it (sockperf for a floor, ghz for grpc), or ""
  std::string_view levy_name;      // its row in Levy's 1989 tables, or ""
  std::string_view payload_note;   // how to carry more than max_payload, or ""
  std::string_view allman_name;    // its row in Allman's 2003 tables (seed 000), or ""
  std::string_view kiraly_name;    // its row in Kiraly's 2018 tables (seed 003), or ""
  // A datagram's first 4 bytes are its request id, big-endian (Sun RPC's
  // XID), so a capture on the link can follow each request (wire_capture.h).
  bool wire_xid = false;
  // Its client spreads calls over several servers given as a list
  // (rpclab-client --server A:P,B:P): the library's own client-side load
  // balancing, so a retried call may reach a replica that never saw it.
  bool balances = false;
  // The HTTP its calls travel in ("h2", "http/1.1"), or "" for its own
  // framing: what a proxy before it must speak (harness/paths/).
  std::string_view http = "";
};

struct TransportRow {
  std::string_view name;
  std::string_view summary;
  TransportTraits traits;
  // The folder under src/ whose module has its functions
  // (transport_module.h); an adapter's row has its own (adapter_functions).
  std::string_view module;

  bool datagram() const { return traits.carrier == Carrier::kDatagram; }
  bool floor() const { return traits.role == Role::kFloor; }
  LibraryRetryTrait library_retry;  // what its library does about a failed call (retry_policy.h)
  // The operations its client carries: its adapter's kClientOperations,
  // which the adapter's table of handlers is checked against when it
  // compiles (transport/client_handlers.h).
  OperationSet operations;

  // The settings it takes, each on its side (settings.h), in the order a
  // matrix fans them out; its adapter reads them from the options.
  std::vector<SettingUse> settings;

  // An adapter's row (docs/adapters.md): its manifest, whose programs the
  // harness runs in place of rpclab-server and rpclab-client; null for the
  // rows built in.
  const AdapterManifest* adapter = nullptr;
  const TransportFunctions* adapter_functions = nullptr;

  ClientSettings client_settings(const ClientOptions& options) const {
    return functions().client_settings(options);
  }
  std::unique_ptr<RpcClient> make_client(const ClientOptions& options) const {  // ConnectError
    return functions().make_client(options);
  }
  std::unique_ptr<RpcServer> make_server(const ServerOptions& options, ServerCore& core) const {  // SetupError
    return functions().make_server(options, core);
  }
  // Its module's functions (SetupError when the module cannot be loaded).
  const TransportFunctions& functions() const;

  bool carries(Operation op) const { return operations.has(op); }
  // Whether it takes `s` on `side` (Side::kBoth: on either side).
  bool takes(const TransportSetting& s, Side side) const {
    for (const SettingUse& use : settings)
      if (use.setting->name == s.name && on_side(use.side, side)) return true;
    return false;
  }
};

// A settings list for a row, from an adapter's constant array.
template <size_t N>
std::vector<SettingUse> settings_list(const SettingUse (&uses)[N]) {
  return std::vector<SettingUse>(uses, uses + N);
}

// The table's order is the display order of reports and --help.
const std::vector<TransportRow>& transports();
const TransportRow* find_transport(std::string_view name);
// "a, b, c" for messages, and the adapters skipped here with the reason.
std::string transport_names();

// Adds the built adapters of `scan` as rows after the built-in ones, and
// remembers the skipped ones. For a program's start, before anything reads
// the table: the rows move. Throws AdapterManifestError for an adapter
// named like a row already in the table.
void add_adapter_rows(const AdapterScan& scan);
const std::vector<SkippedAdapter>& skipped_adapters();
// "" when `row` carries `op`; else one message saying it does not, and
// which transports do.
std::string operation_refusal(const TransportRow& row, Operation op);

// "" when `row` takes `count` servers; else one line saying it takes one
// and which rows balance over several (`given`: the list as given).
std::string server_list_refusal(const TransportRow& row, size_t count, const std::string& given);

// Why `policy` does not apply on `row` (a usage error), or nullopt when it does.
inline std::optional<std::string> retry_policy_refusal(const TransportRow& row, RetryPolicy policy) {
  if (row.adapter && !row.adapter->takes(policy))
    return "transport " + std::string(row.name) + " is an adapter whose client does not implement --retry-policy " +
           std::string(retry_policy_name(policy)) + " (its manifest's retry_policies, " + row.adapter->file + ")";
  return retry_policy_refusal(row.name, row.library_retry, policy);
}

}  // namespace rpclab
