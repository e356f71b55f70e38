// Server side of Sun RPC: our own bound socket, svc_dg_create/svc_vc_create,
// the rpcgen -m dispatch function, and a poll loop so signals are handled.
//
// libtirpc keeps its dispatch table and poll set in process-wide globals, so
// a process serves one Sun RPC transport; rpclab-server is one such process.
#include <fcntl.h>
#include <netconfig.h>
#include <poll.h>
#include <rpc/rpc.h>
#include <rpc/rpc_com.h>
#include <rpc/rpcb_clnt.h>
#include <rpc/svc_dg.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "server/accept_rest.h"
#include "common/inet.h"
#include "rpclab.h"
#include "sunrpc/sunrpc_limits.h"
#include "sunrpc/sunrpc_transport.h"
#include "server/server_core.h"
#include "sunrpc/sunrpc_settings.h"

extern "C" void rpclab_prog_1(struct svc_req* rqstp, SVCXPRT* transp);  // rpcgen -m

namespace rpclab::sunrpc {
namespace {

ServerCore* g_core = nullptr;  // read by the rpcgen service functions below
bool g_datagram = false;

// libtirpc's getargs leaves what a failed decode had allocated (xdr_array
// and xdr_bytes allocate for the length they are told, then run out of
// bytes), and rpcgen's dispatcher answers GARBAGE_ARGS without xdr_free:
// 500 forged AVERAGE datagrams claiming 2^20 doubles each grew the server
// by 4 GB. So every transport handle the dispatcher sees gets a copy of its
// operations whose getargs frees on failure. libtirpc shares one operations
// table among the handles of a kind (datagram, connection), so the copies
// are few; the deque keeps their addresses fixed.
using XprtOps = std::remove_const_t<std::remove_pointer_t<decltype(SVCXPRT::xp_ops)>>;
struct FreeingOps {
  const XprtOps* original;
  XprtOps freeing;
};
std::deque<FreeingOps> g_freeing_ops;

bool_t getargs_that_frees(SVCXPRT* xprt, xdrproc_t decode, void* args) {
  for (const FreeingOps& f : g_freeing_ops) {
    if (xprt->xp_ops != &f.freeing) continue;
    if (f.original->xp_getargs(xprt, decode, args)) return TRUE;
    xdr_free(decode, static_cast<char*>(args));
    return FALSE;
  }
  return FALSE;  // not reached: only handles given these operations call it
}

void give_getargs_that_frees(SVCXPRT* xprt) {
  for (FreeingOps& f : g_freeing_ops) {
    if (xprt->xp_ops == &f.freeing) return;
    if (xprt->xp_ops == f.original) {
      xprt->xp_ops = &f.freeing;
      return;
    }
  }
  g_freeing_ops.push_back({xprt->xp_ops, *xprt->xp_ops});
  g_freeing_ops.back().freeing.xp_getargs = getargs_that_frees;
  xprt->xp_ops = &g_freeing_ops.back().freeing;
}

void rpclab_dispatch(struct svc_req* request, SVCXPRT* transp) {
  give_getargs_that_frees(transp);
  rpclab_prog_1(request, transp);
}

// svc_vc's connections, numbered as they appear in libtirpc's poll set.
// libtirpc accepts them itself and offers no hook, so the poll loop looks
// after each round: a descriptor new to the set is a new connection, one
// gone from it was closed. Exact, because svc_getreq_poll accepts first
// (the listener holds slot 0 of svc_pollfd) and only then closes, so a
// descriptor is never closed and reused for a new connection between two
// looks; and a connection is served only in a round after the one that
// accepted it (the round polls a copy made before the accept).
class ConnectionNumbers {
 public:
  void update(int listener) {
    std::vector<bool> present(id_of_fd_.size());
    for (int i = 0; i < svc_max_pollfd; ++i) {
      int fd = svc_pollfd[i].fd;
      if (fd < 0 || fd == listener) continue;
      if (static_cast<size_t>(fd) >= id_of_fd_.size()) {
        id_of_fd_.resize(fd + 1, 0);
        present.resize(fd + 1, false);
      }
      present[fd] = true;
      if (id_of_fd_[fd] == 0) id_of_fd_[fd] = ++last_;
    }
    for (size_t fd = 0; fd < present.size(); ++fd)
      if (!present[fd]) id_of_fd_[fd] = 0;
  }
  uint32_t id(int fd) const { return fd >= 0 && static_cast<size_t>(fd) < id_of_fd_.size() ? id_of_fd_[fd] : 0; }

 private:
  std::vector<uint32_t> id_of_fd_;  // 0: no connection known on that descriptor
  uint32_t last_ = 0;
};
ConnectionNumbers g_connections;

// The head of svc_vc's private per-connection state (struct cf_conn in
// libtirpc's src/svc_vc.c, 1.3.3 and long before): the XID of the call
// being served is its second field. libtirpc exposes it nowhere else for
// TCP; for UDP, <rpc/svc_dg.h> is public. JournalE2e.RecordsTheXid sends
// known XIDs over both and reads them back, so a libtirpc that moves it
// fails that test rather than filling journals with wrong numbers.
struct CfConnHead {
  enum xprt_stat strm_stat;
  u_int32_t x_id;
};

RequestOrigin origin_of(SVCXPRT* xprt) {
  RequestOrigin origin;
  const netbuf* caller = svc_getrpccaller(xprt);
  if (caller && caller->buf) origin.set_peer(static_cast<const sockaddr*>(caller->buf), caller->len);
  // A transport without libtirpc's private state (the fuzz target's memory
  // transport) gives no XID.
  if (g_datagram) {
    if (xprt->xp_p2) origin.set_request_id(*__rpcb_get_dg_xidp(xprt));
    // The stamp of the datagram svc_dg_recv just read (enabled in make_server).
    timespec ts{};
    if (ioctl(xprt->xp_fd, SIOCGSTAMPNS, &ts) == 0)
      origin.set_kernel_arrival(int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec);
  } else {
    if (xprt->xp_p1) origin.set_request_id(static_cast<const CfConnHead*>(xprt->xp_p1)->x_id);
    if (uint32_t id = g_connections.id(xprt->xp_fd)) origin.set_connection(id);
  }
  return origin;
}

// TCP connections stay in libtirpc's default blocking mode, as in every
// rpcgen server. RPC_SVC_CONNMAXREC_SET would make them non-blocking, but
// libtirpc 1.3.3's non-blocking record reader (__xdrrec_getrec) never
// clears last_frag, so it takes the first fragment of a multi-fragment
// record for the whole record: every call over 65,488 B of payload (a
// stock client sends 64 KiB fragments) then fails as "can't decode
// arguments". The price of blocking mode is stock Sun RPC's own: a peer
// that stalls mid-record holds this single-threaded server in read_vc for
// up to libtirpc's 35 s wait.
//
// Writing is worse in stock blocking mode: write_vc waits without limit, so
// a peer that stops reading a large reply would hold the server forever.
// TCP_USER_TIMEOUT on the listening socket (Linux copies it into every
// accepted connection) bounds that to the same 35 s: a connection whose
// data stays unacknowledged that long, zero-window probes included, is
// aborted, the write fails and write_vc drops the connection. A healthy
// peer, even on a lossy link, acknowledges within a few retransmissions.
constexpr unsigned int kReplyWriteTimeoutMs = 35000;

class SunrpcServer : public RpcServer {
 public:
  SunrpcServer(SVCXPRT* xprt, uint16_t port, const char* netid, bool registered, bool datagram)
      : xprt_(xprt), port_(port), netid_(netid), registered_(registered), listener_(datagram ? -1 : xprt->xp_fd),
        accept_rest_("sunrpc-tcp") {}

  ~SunrpcServer() override {
    if (registered_) {
      netconfig* nconf = getnetconfigent(netid_);
      rpcb_unset(RPCLAB_PROG, RPCLAB_V1, nconf);
      freenetconfigent(nconf);
    }
    svc_unreg(RPCLAB_PROG, RPCLAB_V1);
    svc_destroy(xprt_);
    g_core = nullptr;
  }

  uint16_t port() const override { return port_; }

  // Polls a private copy of libtirpc's pollfd set, as its own svc_run does:
  // accepting or closing a connection inside svc_getreq_poll reallocates
  // svc_pollfd, and iterating the global itself then reads freed memory
  // (seen: a segfault under concurrent per-call TCP clients).
  void serve(const std::atomic<bool>& stop) override {
    std::vector<pollfd> fds;
    while (!stop.load()) {
      bool accepting = !accept_rest_.resting();
      fds.assign(svc_pollfd, svc_pollfd + svc_max_pollfd);
      for (pollfd& p : fds) {
        p.revents = 0;
        if (p.fd == listener_ && !accepting) p.fd = -1;  // poll() leaves it out
      }
      int n = ::poll(fds.data(), fds.size(), 100);
      if (n > 0) n -= hold_back_accept(fds);
      if (n > 0) {
        svc_getreq_poll(fds.data(), n);
        if (listener_ >= 0) g_connections.update(listener_);
      } else if (n < 0 && errno != EINTR) throw SetupError(std::string("poll failed: ") + std::strerror(errno));
    }
  }

 private:
  // Out of descriptors, libtirpc's accept fails and returns, and the loop
  // would spin (AcceptRest). So before libtirpc accepts, a spare descriptor
  // is tried (a dup and a close per new connection, not per call on a kept
  // one); without one the listener rests. Returns 1 when it held the
  // listener's event back, else 0.
  int hold_back_accept(std::vector<pollfd>& fds) {
    for (pollfd& p : fds) {
      if (p.fd != listener_ || !(p.revents & POLLIN)) continue;
      int spare = ::fcntl(listener_, F_DUPFD_CLOEXEC, 0);
      if (spare >= 0) {
        ::close(spare);
        accept_rest_.end();
        return 0;
      }
      accept_rest_.rest(errno);
      p.revents = 0;
      return 1;
    }
    return 0;
  }

  SVCXPRT* xprt_;
  uint16_t port_;
  const char* netid_;
  bool registered_;
  int listener_;  // the TCP listening socket; -1 for UDP
  AcceptRest accept_rest_;
};

// Registers the bound address with rpcbind so `rpcinfo -p` lists it and
// clients can bind by program number. svc_register() would register the
// xprt's port, which svc_dg_create leaves unset, so the address is given
// to rpcb_set directly.
void register_with_rpcbind(const char* netid, const std::string& host, uint16_t port) {
  netconfig* nconf = getnetconfigent(netid);
  if (!nconf) throw SetupError(std::string("no netconfig entry for ") + netid + " (/etc/netconfig)");
  sockaddr_in addr = resolve_ipv4(host, port);
  netbuf nb{sizeof addr, sizeof addr, &addr};
  rpcb_unset(RPCLAB_PROG, RPCLAB_V1, nconf);  // a crashed server's stale entry
  bool ok = rpcb_set(RPCLAB_PROG, RPCLAB_V1, nconf, &nb);
  freenetconfigent(nconf);
  if (!ok)
    throw SetupError("cannot register with rpcbind: " + std::string(clnt_spcreateerror("rpcb_set")) +
                     " (is rpcbind running? start it with: rpcbind -w)");
}

std::unique_ptr<RpcServer> make_server(const ServerOptions& options, ServerCore& core, bool datagram) {
  if (g_core) throw SetupError("a Sun RPC server is already running in this process");
  int fd = bind_socket(datagram ? SOCK_DGRAM : SOCK_STREAM, options.host, options.port);
  if (!datagram) ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &kReplyWriteTimeoutMs, sizeof kReplyWriteTimeoutMs);
  if (!datagram && options.settings.on(kTcpNodelay)) {
    // libtirpc accepts the connections itself; Linux hands the listening
    // socket's TCP_NODELAY on to every accepted one.
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  uint16_t port = bound_port(fd);
  if (datagram) {
    // The first SIOCGSTAMPNS turns on receive stamps for the socket, and the
    // kernel's stamping a moment later; asked now, every request is stamped.
    timespec ts{};
    ::ioctl(fd, SIOCGSTAMPNS, &ts);
  }
  SVCXPRT* xprt;
  if (datagram) {
    u_int size = static_cast<u_int>(options.settings.value_or(kUdpBufsize, kLibtirpcUdpBuffer));
    xprt = svc_dg_create(fd, size, size);
  } else {
    xprt = svc_vc_create(fd, 0, 0);
  }
  if (!xprt) {
    ::close(fd);
    throw SetupError("libtirpc could not create a server transport on the bound socket");
  }
  auto drc_entries = static_cast<u_int>(options.settings.value_or(kReplyCache, 0));
  if (datagram && drc_entries > 0 && !svc_dg_enablecache(xprt, drc_entries))
    throw SetupError("svc_dg_enablecache failed");
  if (!svc_reg(xprt, RPCLAB_PROG, RPCLAB_V1, rpclab_dispatch, nullptr))
    throw SetupError("svc_reg failed: is another server for program 0x20151989 in this process?");
  const char* netid = datagram ? "udp" : "tcp";
  bool rpcbind = options.settings.on(kRpcbind);
  if (rpcbind) register_with_rpcbind(netid, options.host, port);
  g_core = &core;
  g_datagram = datagram;
  g_connections = ConnectionNumbers();
  return std::make_unique<SunrpcServer>(xprt, port, netid, rpcbind, datagram);
}

}  // namespace

std::unique_ptr<RpcServer> make_udp_server(const ServerOptions& options, ServerCore& core) {
  return make_server(options, core, true);
}

std::unique_ptr<RpcServer> make_tcp_server(const ServerOptions& options, ServerCore& core) {
  return make_server(options, core, false);
}

}  // namespace rpclab::sunrpc

// The service functions rpcgen's dispatch calls (the -M calling convention).
extern "C" {

bool_t rpclab_null_1_svc(void*, void*, struct svc_req*) {
  rpclab::sunrpc::g_core->count_null();
  return TRUE;
}

bool_t rpclab_next_1_svc(next_args* args, next_result* result, struct svc_req* request) {
  rpclab::NextReply reply;
  try {
    reply = rpclab::sunrpc::g_core->next(args->client_id, args->seq, rpclab::sunrpc::origin_of(request->rq_xprt));
  } catch (const rpclab::AtMostOnceUnavailable&) {
    // Not run: SYSTEM_ERR to the client; FALSE tells rpcgen's dispatch to
    // send no reply of its own.
    svcerr_systemerr(request->rq_xprt);
    return FALSE;
  }
  result->status = static_cast<next_status>(reply.status);
  result->expected_seq = reply.expected_seq;
  result->times_executed = reply.times_executed;
  return TRUE;
}

// The reply points at the request's own bytes: no copy. The dispatcher frees
// the arguments itself, which is why freeresult below frees nothing.
bool_t rpclab_echo_1_svc(echo_bytes* args, echo_bytes* result, struct svc_req*) {
  rpclab::sunrpc::g_core->count_echo();
  *result = *args;
  return TRUE;
}

bool_t rpclab_isprime_1_svc(int* n, bool_t* result, struct svc_req*) {
  *result = rpclab::sunrpc::g_core->is_prime(*n);
  return TRUE;
}

// A call the core refuses (ops/allman.h) is answered GARBAGE_ARGS, the one
// "your arguments are wrong" reply ONC RPC has; returning FALSE alone
// would send no reply at all.
bool_t rpclab_average_1_svc(allman_doubles* args, double* result, struct svc_req* request) {
  if (!rpclab::sunrpc::g_core->average(args->allman_doubles_val, args->allman_doubles_len, result)) return TRUE;
  svcerr_decode(request->rq_xprt);
  return FALSE;
}

// The replies' doubles live here until the next call: one thread serves.
static std::vector<double> g_reply_values;

static bool_t reply_values(std::optional<std::string> refused, allman_doubles* result, struct svc_req* request) {
  if (refused) {
    svcerr_decode(request->rq_xprt);
    return FALSE;
  }
  *result = {static_cast<u_int>(g_reply_values.size()), g_reply_values.data()};
  return TRUE;
}

bool_t rpclab_getrandnums_1_svc(int* count, allman_doubles* result, struct svc_req* request) {
  return reply_values(rpclab::sunrpc::g_core->get_rand_nums(*count, &g_reply_values), result, request);
}

bool_t rpclab_logtransform_1_svc(allman_doubles* args, allman_doubles* result, struct svc_req* request) {
  return reply_values(
      rpclab::sunrpc::g_core->log_transform(args->allman_doubles_val, args->allman_doubles_len, &g_reply_values),
      result, request);
}

// Kiraly's record: the reply points into the core's record, kept here
// until the next call (one thread serves).
static std::shared_ptr<const rpclab::KiralyRecord> g_record;

bool_t rpclab_getrecord_1_svc(kiraly_request* args, kiraly_record* result, struct svc_req* request) {
  if (rpclab::sunrpc::g_core->get_record(args->id, args->photo_bytes, &g_record)) {
    svcerr_decode(request->rq_xprt);
    return FALSE;
  }
  const rpclab::KiralyRecord& r = *g_record;
  auto text = [](const std::string& s) { return const_cast<char*>(s.c_str()); };  // XDR only reads them
  *result = {r.id,          text(r.first_name), text(r.last_name), r.age,       text(r.email), text(r.phone),
             r.newsletter, r.latitude,         r.longitude,       {static_cast<u_int>(r.photo.size()),
                                                                     const_cast<char*>(r.photo.data())}};
  return TRUE;
}

// Every reply points at memory the server keeps (the request's own bytes,
// g_reply_values): nothing to free.
int rpclab_prog_1_freeresult(SVCXPRT*, xdrproc_t, caddr_t) { return TRUE; }

}  // extern "C"
