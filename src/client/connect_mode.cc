#include "client/connect_mode.h"

#include <functional>

#include "common/inet.h"

namespace rpclab {
namespace {

bool breaks_handle(ErrorKind kind) {
  return kind == ErrorKind::kUnavailable || kind == ErrorKind::kCannotSend ||
         kind == ErrorKind::kCannotReceive;
}

// Runs `call` on a handle: the kept one, or a fresh one per call.
class ModalClient : public RpcClient {
 public:
  // The handle is made by the first call, not here: a connect that fails
  // (a SYN lost on an impaired link, a server not up yet) is that call's
  // outcome, and the next call tries again, as a long-lived client would.
  // The row's functions are looked up once (a module lookup), not per call.
  ModalClient(const TransportRow& row, ClientOptions options)
      : functions_(row.functions()), options_(std::move(options)) {}

  CallStatus call(Operation op, const OpArgs& args, OpReply* reply) override {
    return with_handle([&](RpcClient& c) { return c.call(op, args, reply); });
  }

 private:
  CallStatus with_handle(const std::function<CallStatus(RpcClient&)>& call) {
    bool per_call = options_.connect == ConnectMode::kPerCall;
    if (per_call || !handle_) {
      try {
        handle_ = functions_.make_client(options_);
      } catch (const ConnectError& e) {
        return e.status();
      }
    }
    CallStatus status = call(*handle_);
    // A persistent handle whose connection broke is re-made before the next
    // call, as a long-lived client would; a timeout keeps the handle, so
    // late replies stay in play exactly as the library leaves them.
    if (per_call || breaks_handle(status.kind)) handle_.reset();
    return status;
  }

  const TransportFunctions& functions_;
  ClientOptions options_;
  std::unique_ptr<RpcClient> handle_;
};

}  // namespace

std::string_view connect_mode_name(ConnectMode mode) {
  return mode == ConnectMode::kPerCall ? "per-call" : "persistent";
}

std::optional<ConnectMode> parse_connect_mode(std::string_view name) {
  if (name == "persistent") return ConnectMode::kPersistent;
  if (name == "per-call") return ConnectMode::kPerCall;
  return std::nullopt;
}

// The host is resolved here, once, for every transport: a name that does
// not resolve is a setup failure (SetupError, exit 3) before any call, not
// an outcome of each call (gRPC resolves lazily and would report every
// call UNAVAILABLE; clnt_create would report it per handle). The adapters
// get the address itself, so no call resolves a name again mid-run.
std::unique_ptr<RpcClient> connect_client(const ClientOptions& options) {
  const TransportRow* row = find_transport(options.transport);
  if (!row) throw SetupError("unknown transport '" + options.transport + "' (known: " + transport_names() + ")");
  ClientOptions resolved = options;
  resolved.host = resolve_ipv4_text(options.host);
  return std::make_unique<ModalClient>(*row, resolved);
}

}  // namespace rpclab
