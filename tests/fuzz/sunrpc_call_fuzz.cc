// Target sunrpc_call: one Sun RPC call message, as a UDP datagram carries it
// (RFC 5531), through rpclab's server side.
//
// libtirpc's xdr_callmsg decodes the header over xdrmem, as svc_dg does.
// A call for our program and version then goes to rpcgen's dispatcher
// (rpclab_prog_1), which decodes the arguments with rpcgen's xdr_next_args
// or xdr_echo_bytes and calls rpclab's service functions and ServerCore.
// The transport under the dispatcher is a memory one: getargs decodes from
// the same stream, as svc_dg_getargs does, and the reply is encoded into a
// buffer, decoded again and checked against the call.
#include <rpc/rpc.h>

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "server/server_core.h"
#include "fuzz_targets.h"
#include "rpclab.h"
#include "sunrpc/sunrpc_transport.h"

extern "C" void rpclab_prog_1(struct svc_req* rqstp, SVCXPRT* transp);  // rpcgen -m

namespace rpclab::fuzz {
namespace {

constexpr size_t kLedgerBytes = size_t{4} << 20;  // small, so the "ledger full" path runs too

// rpclab's service functions reach the core through the Sun RPC adapter, which
// is set up by making a real (idle) UDP server on loopback once per process.
ServerCore& core() {
  static ServerCore core(kLedgerBytes);
  static std::unique_ptr<RpcServer> server = [] {
    ServerOptions options;
    options.transport = "sunrpc-udp";
    return sunrpc::make_udp_server(options, core);
  }();
  return core;
}

struct MemTransport {
  SVCXPRT xprt{};  // first, so the callbacks can cast back
  XDR* in = nullptr;
  uint32_t xid = 0;  // the transport puts the call's xid in the reply, as svc_dg_reply does
  std::vector<char> out;
  size_t out_len = 0;
  int replies = 0;
  bool args_decoded = false;
  std::string echo_args;  // what ECHO's arguments decoded to
};

MemTransport* self(SVCXPRT* xprt) { return reinterpret_cast<MemTransport*>(xprt); }

// A decode that fails part way (an array's count, then too few elements)
// has allocated already, and rpcgen's dispatcher does not free arguments it
// could not decode. libtirpc 1.3.3's svc_dg_getargs does not free them
// either, so the real server leaks such a datagram's partial arguments
// (src/server_main.cc leaves out only the reply cache's leaks of libtirpc,
// not this one); this transport frees them, so the fuzzer looks for
// rpclab's leaks, not that one.
bool_t mem_getargs(SVCXPRT* xprt, xdrproc_t proc, void* where) {
  MemTransport* t = self(xprt);
  if (!proc(t->in, where)) {
    xdr_free(proc, static_cast<char*>(where));
    return FALSE;
  }
  t->args_decoded = true;
  if (proc == reinterpret_cast<xdrproc_t>(xdr_echo_bytes)) {
    auto* e = static_cast<echo_bytes*>(where);
    t->echo_args.assign(e->echo_bytes_val ? e->echo_bytes_val : "", e->echo_bytes_len);
  }
  return TRUE;
}

bool_t mem_freeargs(SVCXPRT*, xdrproc_t proc, void* where) {
  xdr_free(proc, static_cast<char*>(where));
  return TRUE;
}

bool_t mem_reply(SVCXPRT* xprt, rpc_msg* msg) {
  MemTransport* t = self(xprt);
  ++t->replies;
  msg->rm_xid = t->xid;
  // Room for this reply whatever its size: GetRandNums and GetRecord answer
  // a short call with a long reply, and a buffer too small would make the
  // dispatcher send SYSTEM_ERR after the failed reply (two replies).
  size_t need = xdr_sizeof(reinterpret_cast<xdrproc_t>(xdr_replymsg), msg);
  if (t->out.size() < need) t->out.resize(need);
  XDR x;
  xdrmem_create(&x, t->out.data(), static_cast<u_int>(t->out.size()), XDR_ENCODE);
  bool_t ok = xdr_replymsg(&x, msg);
  t->out_len = ok ? XDR_GETPOS(&x) : 0;
  XDR_DESTROY(&x);
  return ok;
}

bool_t mem_recv(SVCXPRT*, rpc_msg*) { return FALSE; }
xprt_stat mem_stat(SVCXPRT*) { return XPRT_IDLE; }
void mem_destroy(SVCXPRT*) {}

using XprtOps = std::remove_const_t<std::remove_pointer_t<decltype(SVCXPRT::xp_ops)>>;
const XprtOps kMemOps = {mem_recv, mem_stat, mem_getargs, mem_reply, mem_freeargs, mem_destroy};

// NULL's results, and those of a refused call: nothing (xdr_void's own
// prototype takes no arguments, so it cannot be cast to xdrproc_t cleanly).
bool_t no_results(XDR*, ...) { return TRUE; }

// Decodes the reply the dispatcher sent and checks it against the call.
void check_reply(const MemTransport& t, uint32_t xid, uint32_t proc, const ServerCounters& before) {
  RPCLAB_FUZZ_CHECK(t.replies == 1, "the dispatcher sent " + std::to_string(t.replies) + " replies");
  RPCLAB_FUZZ_CHECK(t.out_len > 0, "the reply could not be encoded");
  next_result next{};
  echo_bytes echo{};
  rpc_msg reply{};
  reply.acpted_rply.ar_verf = _null_auth;
  reply.acpted_rply.ar_results.where =
      proc == RPCLAB_NEXT ? reinterpret_cast<caddr_t>(&next) : reinterpret_cast<caddr_t>(&echo);
  reply.acpted_rply.ar_results.proc = proc == RPCLAB_NEXT ? reinterpret_cast<xdrproc_t>(xdr_next_result)
                                      : proc == RPCLAB_ECHO ? reinterpret_cast<xdrproc_t>(xdr_echo_bytes)
                                                            : no_results;
  XDR x;
  xdrmem_create(&x, const_cast<char*>(t.out.data()), static_cast<u_int>(t.out_len), XDR_DECODE);
  bool_t decoded = xdr_replymsg(&x, &reply);
  XDR_DESTROY(&x);
  std::string echoed(echo.echo_bytes_val ? echo.echo_bytes_val : "", echo.echo_bytes_len);
  xdr_free(reinterpret_cast<xdrproc_t>(xdr_echo_bytes), reinterpret_cast<char*>(&echo));
  RPCLAB_FUZZ_CHECK(decoded, "the reply does not decode");
  RPCLAB_FUZZ_CHECK(reply.rm_xid == xid && reply.rm_reply.rp_stat == MSG_ACCEPTED, "reply header");

  ServerCounters after = core().counters();
  bool allman = proc >= RPCLAB_ISPRIME && proc <= RPCLAB_GETRECORD;  // and Kiraly's, refused the same way
  bool known = proc == RPCLAB_NULL || proc == RPCLAB_NEXT || proc == RPCLAB_ECHO || allman;
  if (!known) {
    RPCLAB_FUZZ_CHECK(reply.acpted_rply.ar_stat == PROC_UNAVAIL, "unknown procedure not refused");
    return;
  }
  if (!t.args_decoded && proc != RPCLAB_NULL) {
    RPCLAB_FUZZ_CHECK(reply.acpted_rply.ar_stat == GARBAGE_ARGS, "undecodable arguments not refused");
    RPCLAB_FUZZ_CHECK(after.next_calls == before.next_calls && after.echo_calls == before.echo_calls &&
                          after.allman_calls == before.allman_calls && after.record_calls == before.record_calls,
                      "a call whose arguments did not decode reached the core");
    return;
  }
  // Allman's: run and answered, or refused for its values (ops/allman.h)
  // with GARBAGE_ARGS and not counted.
  if (allman) {
    uint64_t done_before = before.allman_calls + before.record_calls, done = after.allman_calls + after.record_calls;
    bool ran = done == done_before + 1;
    RPCLAB_FUZZ_CHECK(ran ? reply.acpted_rply.ar_stat == SUCCESS
                          : reply.acpted_rply.ar_stat == GARBAGE_ARGS && done == done_before,
                      "an Allman or Kiraly call neither ran once nor was refused");
    return;
  }
  RPCLAB_FUZZ_CHECK(reply.acpted_rply.ar_stat == SUCCESS, "a decoded call did not succeed");
  if (proc == RPCLAB_NEXT) {
    RPCLAB_FUZZ_CHECK(after.next_calls == before.next_calls + 1, "NEXT not counted once");
    RPCLAB_FUZZ_CHECK(next.status == NEXT_IN_ORDER || next.status == NEXT_OUT_OF_ORDER ||
                          next.status == NEXT_NOT_RECORDED,
                      "NEXT status " + std::to_string(next.status));
  } else if (proc == RPCLAB_ECHO) {
    RPCLAB_FUZZ_CHECK(after.echo_calls == before.echo_calls + 1, "ECHO not counted once");
    RPCLAB_FUZZ_CHECK(echoed == t.echo_args, "ECHO reply differs from its arguments");
  }
}

}  // namespace

int fuzz_sunrpc_call(const uint8_t* data, size_t size) {
  core();
  XDR in;
  xdrmem_create(&in, reinterpret_cast<char*>(const_cast<uint8_t*>(data)), static_cast<u_int>(size), XDR_DECODE);
  // As svc_dg_recv: the credential and verifier bodies land in fixed areas.
  char cred_area[2 * MAX_AUTH_BYTES];
  rpc_msg msg{};
  msg.rm_call.cb_cred.oa_base = cred_area;
  msg.rm_call.cb_verf.oa_base = cred_area + MAX_AUTH_BYTES;
  bool_t header = xdr_callmsg(&in, &msg);
  if (header && msg.rm_direction == CALL && msg.rm_call.cb_rpcvers == RPC_MSG_VERSION &&
      msg.rm_call.cb_prog == RPCLAB_PROG && msg.rm_call.cb_vers == RPCLAB_V1) {
    MemTransport t;
    t.xprt.xp_ops = &kMemOps;
    t.xprt.xp_verf = _null_auth;
    t.in = &in;
    t.xid = msg.rm_xid;
    t.out.resize(size + 1024);  // an ECHO reply is never longer than its call; mem_reply grows it for others
    svc_req req{};
    req.rq_prog = msg.rm_call.cb_prog;
    req.rq_vers = msg.rm_call.cb_vers;
    req.rq_proc = msg.rm_call.cb_proc;
    req.rq_cred = msg.rm_call.cb_cred;
    req.rq_xprt = &t.xprt;
    ServerCounters before = core().counters();
    rpclab_prog_1(&req, &t.xprt);
    check_reply(t, msg.rm_xid, msg.rm_call.cb_proc, before);
  }
  XDR_DESTROY(&in);
  return 0;
}

}  // namespace rpclab::fuzz
