// Client side of Sun RPC: a CLIENT handle from libtirpc on our own socket,
// calls made through the rpcgen -M stubs.
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "common/inet.h"
#include "rpclab.h"
#include "rpclab_versions.h"
#include "sunrpc/sunrpc_limits.h"
#include "sunrpc/sunrpc_status.h"
#include "sunrpc/sunrpc_transport.h"
#include "transport/client_handlers.h"
#include "sunrpc/sunrpc_settings.h"

namespace rpclab::sunrpc {
namespace {

timeval to_timeval(int ms) { return timeval{ms / 1000, (ms % 1000) * 1000}; }

size_t udp_buffer(size_t requested) { return requested ? requested : kLibtirpcUdpBuffer; }
// --udp-bufsize, or 0 for libtirpc's own.
size_t bufsize_of(const ClientOptions& options) {
  return static_cast<size_t>(options.settings.value_or(kUdpBufsize, 0));
}

class SunrpcClient : public RpcClient {
 public:
  // One call, through the handler of its operation (kHandlers, below).
  CallStatus call(Operation op, const OpArgs& args, OpReply* reply) override;

  SunrpcClient(CLIENT* clnt, bool datagram, const ClientOptions& options)
      : clnt_(clnt), drain_(datagram && options.settings.on(kDrainStaleReplies)),
        max_payload_(datagram ? udp_max_payload(bufsize_of(options)) : 0), bufsize_(bufsize_of(options)) {
    if (options.timeout_ms) {
      timeval total = to_timeval(*options.timeout_ms);
      clnt_control(clnt_, CLSET_TIMEOUT, reinterpret_cast<char*>(&total));
    }
    if (auto retry_ms = options.settings.get(kRetryTimeout); datagram && retry_ms) {
      timeval retry = to_timeval(static_cast<int>(*retry_ms));
      clnt_control(clnt_, CLSET_RETRY_TIMEOUT, reinterpret_cast<char*>(&retry));
    }
  }
  ~SunrpcClient() override { clnt_destroy(clnt_); }

  CallStatus null_call(const Empty&, Empty*) {
    before_call();
    return status_from_clnt(clnt_, rpclab_null_1(nullptr, nullptr, clnt_));
  }

  CallStatus next(const NextRequest& request, NextReply* reply) {
    before_call();
    next_args args{request.client_id, request.seq};
    next_result res{};
    enum clnt_stat stat = rpclab_next_1(&args, &res, clnt_);
    if (stat == RPC_SUCCESS) {
      reply->status = static_cast<NextStatus>(res.status);
      reply->expected_seq = res.expected_seq;
      reply->times_executed = res.times_executed;
    }
    return status_from_clnt(clnt_, stat);
  }

  CallStatus echo(const std::string& payload, std::string* reply) {
    if (!fits(payload.size())) return too_big(payload.size());
    before_call();
    echo_bytes args{static_cast<u_int>(payload.size()), const_cast<char*>(payload.data())};
    echo_bytes res{};
    enum clnt_stat stat = rpclab_echo_1(&args, &res, clnt_);
    if (stat == RPC_SUCCESS) reply->assign(res.echo_bytes_val, res.echo_bytes_len);
    xdr_free(reinterpret_cast<xdrproc_t>(xdr_echo_bytes), reinterpret_cast<char*>(&res));
    return status_from_clnt(clnt_, stat);
  }

  CallStatus is_prime(int32_t n, bool* prime) {
    before_call();
    int arg = n;
    bool_t res = FALSE;
    enum clnt_stat stat = rpclab_isprime_1(&arg, &res, clnt_);
    if (stat == RPC_SUCCESS) *prime = res;
    return status_from_clnt(clnt_, stat);
  }

  CallStatus average(const std::vector<double>& values, double* mean) {
    if (!fits(values.size() * sizeof(double))) return too_big(values.size() * sizeof(double));
    before_call();
    allman_doubles args = doubles_of(values);
    return status_from_clnt(clnt_, rpclab_average_1(&args, mean, clnt_));
  }

  CallStatus get_rand_nums(int32_t count, std::vector<double>* values) {
    if (count > 0 && !fits(size_t(count) * sizeof(double))) return too_big(size_t(count) * sizeof(double));
    before_call();
    int arg = count;
    allman_doubles res{};
    enum clnt_stat stat = rpclab_getrandnums_1(&arg, &res, clnt_);
    take(stat, &res, values);
    return status_from_clnt(clnt_, stat);
  }

  CallStatus log_transform(const std::vector<double>& values, std::vector<double>* logs) {
    if (!fits(values.size() * sizeof(double))) return too_big(values.size() * sizeof(double));
    before_call();
    allman_doubles args = doubles_of(values), res{};
    enum clnt_stat stat = rpclab_logtransform_1(&args, &res, clnt_);
    take(stat, &res, logs);
    return status_from_clnt(clnt_, stat);
  }

  CallStatus get_record(const RecordRequest& request, KiralyRecord* record) {
    size_t bytes = payload_bytes(Operation::kGetRecord, request.photo_bytes);
    if (!fits(bytes)) return too_big(bytes);
    before_call();
    kiraly_request args{request.id, request.photo_bytes};
    ::kiraly_record res{};
    enum clnt_stat stat = rpclab_getrecord_1(&args, &res, clnt_);
    if (stat == RPC_SUCCESS) *record = record_of(res);
    xdr_free(reinterpret_cast<xdrproc_t>(xdr_kiraly_record), reinterpret_cast<char*>(&res));
    return status_from_clnt(clnt_, stat);
  }

 private:
  static allman_doubles doubles_of(const std::vector<double>& values) {
    return {static_cast<u_int>(values.size()), const_cast<double*>(values.data())};
  }
  // Copies a reply's doubles out and frees what XDR allocated for them.
  static void take(enum clnt_stat stat, allman_doubles* res, std::vector<double>* out) {
    if (stat == RPC_SUCCESS) out->assign(res->allman_doubles_val, res->allman_doubles_val + res->allman_doubles_len);
    xdr_free(reinterpret_cast<xdrproc_t>(xdr_allman_doubles), reinterpret_cast<char*>(res));
  }
  static KiralyRecord record_of(const ::kiraly_record& r) {
    auto text = [](const char* s) { return s ? std::string(s) : std::string(); };
    return {r.id,           text(r.first_name), text(r.last_name), r.age,        text(r.email),
            text(r.phone), r.newsletter != 0, r.latitude,         r.longitude, std::string(r.photo.photo_val, r.photo.photo_len)};
  }
  bool fits(size_t bytes) const { return !max_payload_ || bytes <= max_payload_; }
  CallStatus too_big(size_t bytes) const {
    return CallStatus::failure(
        ErrorKind::kCannotCode,
        "payload of " + std::to_string(bytes) + " bytes does not fit in a UDP message of " +
            std::to_string(udp_buffer(bufsize_)) + " bytes (at most " + std::to_string(max_payload_) +
            "; raise --udp-bufsize on client and server, up to 65536)");
  }

  // Replies that arrived after their call gave up are still queued on the
  // socket; clnt_dg answers each such mismatched reply by resending at once.
  // Draining is the remedy under test, so it is off unless asked for.
  void before_call() {
    if (!drain_) return;
    int fd = -1;
    clnt_control(clnt_, CLGET_FD, reinterpret_cast<char*>(&fd));
    drop_stale_replies(fd);
  }

  CLIENT* clnt_;
  bool drain_;
  size_t max_payload_;
  size_t bufsize_;
};

constexpr ClientHandler<SunrpcClient> kHandlers[] = {
    {Operation::kNull, handle<&SunrpcClient::null_call>},
    {Operation::kNext, handle<&SunrpcClient::next>},
    {Operation::kEcho, handle<&SunrpcClient::echo>},
    {Operation::kIsPrime, handle<&SunrpcClient::is_prime>},
    {Operation::kAverage, handle<&SunrpcClient::average>},
    {Operation::kGetRandNums, handle<&SunrpcClient::get_rand_nums>},
    {Operation::kLogTransform, handle<&SunrpcClient::log_transform>},
    {Operation::kGetRecord, handle<&SunrpcClient::get_record>},
};
static_assert(operations_of(kHandlers) == kClientOperations, "the row's operations are its handlers'");

CallStatus SunrpcClient::call(Operation op, const OpArgs& args, OpReply* reply) {
  return dispatch(kHandlers, *this, op, args, reply);
}

[[noreturn]] void throw_create_error(const std::string& what) {
  auto& err = rpc_createerr;  // per thread in libtirpc
  std::string text = what + ": " + clnt_sperrno(err.cf_stat);
  if (err.cf_error.re_errno) text += std::string(": ") + std::strerror(err.cf_error.re_errno);
  ErrorKind kind = err.cf_stat == RPC_TIMEDOUT ? ErrorKind::kTimeout : ErrorKind::kUnavailable;
  throw ConnectError(CallStatus::failure(kind, text));
}

// rpcbind mode: clnt_create asks the host's rpcbind for the program's port.
CLIENT* create_via_rpcbind(const ClientOptions& options, const char* netid) {
  CLIENT* clnt = clnt_create(options.host.c_str(), RPCLAB_PROG, RPCLAB_V1, netid);
  if (!clnt) throw_create_error("cannot bind to program 0x20151989 on " + options.host + " via rpcbind");
  return clnt;
}

int connect_timeout_ms(const ClientOptions& options) { return options.timeout_ms.value_or(kRpcgenTimeoutMs); }

}  // namespace

size_t udp_max_payload(size_t bufsize) {
  size_t datagram = std::min(bufsize ? bufsize : kLibtirpcUdpBuffer, kMaxIpv4UdpPayload);
  return (datagram - kEchoCallOverhead) & ~size_t{3};
}

ClientSettings udp_settings(const ClientOptions& options) {
  ClientSettings s;
  s.timeout_ms = options.timeout_ms.value_or(kRpcgenTimeoutMs);
  s.timeout_is_default = !options.timeout_ms;
  s.retry_timeout_ms = static_cast<int>(options.settings.value_or(kRetryTimeout, kLibtirpcRetryMs));
  s.retry_is_default = !options.settings.on(kRetryTimeout);
  s.max_payload = udp_max_payload(bufsize_of(options));
  s.library = "libtirpc " RPCLAB_LIBTIRPC_VERSION;
  return s;
}

ClientSettings tcp_settings(const ClientOptions& options) {
  ClientSettings s = udp_settings(options);
  s.retry_timeout_ms = -1;  // clnt_vc never retransmits; TCP does
  s.retry_is_default = true;
  s.max_payload = 16u << 20;  // the bound in idl/rpclab.x
  return s;
}

std::unique_ptr<RpcClient> make_udp_client(const ClientOptions& options) {
  CLIENT* clnt;
  if (options.settings.on(kRpcbind)) {
    clnt = create_via_rpcbind(options, "udp");
  } else {
    // Our own socket: with RPC_ANYSOCK, libtirpc would walk the reserved
    // ports (bindresvport) on every handle when run as root.
    sockaddr_in addr = resolve_ipv4(options.host, options.port);
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw ConnectError(CallStatus::failure(ErrorKind::kCannotSend, std::strerror(errno)));
    netbuf nb{sizeof addr, sizeof addr, &addr};
    u_int size = static_cast<u_int>(udp_buffer(bufsize_of(options)));
    clnt = clnt_dg_create(fd, &nb, RPCLAB_PROG, RPCLAB_V1, size, size);
    if (!clnt) {
      ::close(fd);
      throw_create_error("cannot create a UDP client handle");
    }
    clnt_control(clnt, CLSET_FD_CLOSE, nullptr);
  }
  return std::make_unique<SunrpcClient>(clnt, true, options);
}

std::unique_ptr<RpcClient> make_tcp_client(const ClientOptions& options) {
  CLIENT* clnt;
  if (options.settings.on(kRpcbind)) {
    clnt = create_via_rpcbind(options, "tcp");
  } else {
    sockaddr_in addr = resolve_ipv4(options.host, options.port);
    std::string error;
    int err_no = 0;
    int fd = connect_tcp(addr, connect_timeout_ms(options), options.settings.on(kTcpNodelay), &error, &err_no);
    if (fd < 0) {
      ErrorKind kind = err_no == ETIMEDOUT ? ErrorKind::kTimeout : ErrorKind::kUnavailable;
      throw ConnectError(CallStatus::failure(
          kind, "cannot connect to " + format_endpoint(options.host, options.port) + ": " + error));
    }
    netbuf nb{sizeof addr, sizeof addr, &addr};
    clnt = clnt_vc_create(fd, &nb, RPCLAB_PROG, RPCLAB_V1, 0, 0);
    if (!clnt) {
      ::close(fd);
      throw_create_error("cannot create a TCP client handle");
    }
    clnt_control(clnt, CLSET_FD_CLOSE, nullptr);
  }
  return std::make_unique<SunrpcClient>(clnt, false, options);
}

}  // namespace rpclab::sunrpc
