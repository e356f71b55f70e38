#include "sunrpc/sunrpc_status.h"

#include <cerrno>
#include <string>

namespace rpclab::sunrpc {
namespace {

ErrorKind kind_of(enum clnt_stat stat, int err_no) {
  switch (stat) {
    case RPC_SUCCESS:
      return ErrorKind::kOk;
    case RPC_TIMEDOUT:
      return ErrorKind::kTimeout;
    case RPC_CANTSEND:
      return ErrorKind::kCannotSend;
    case RPC_CANTRECV:
      // clnt_dg reports an ICMP port unreachable (IP_RECVERR) this way.
      return err_no == ECONNREFUSED ? ErrorKind::kUnavailable : ErrorKind::kCannotReceive;
    case RPC_CANTENCODEARGS:
    case RPC_CANTDECODERES:
    case RPC_CANTDECODEARGS:
      return ErrorKind::kCannotCode;
    case RPC_PROGUNAVAIL:
    case RPC_PROGVERSMISMATCH:
    case RPC_PROCUNAVAIL:
    case RPC_UNKNOWNHOST:
    case RPC_UNKNOWNPROTO:
    case RPC_UNKNOWNADDR:
    case RPC_PROGNOTREGISTERED:
    case RPC_N2AXLATEFAILURE:
    case RPC_RPCBFAILURE:
      return ErrorKind::kUnavailable;
    default:
      return ErrorKind::kOther;
  }
}

}  // namespace

CallStatus status_from_clnt(CLIENT* clnt, enum clnt_stat stat) {
  if (stat == RPC_SUCCESS) return CallStatus::success();
  struct rpc_err err {};
  clnt_geterr(clnt, &err);
  std::string text = clnt_sperrno(stat);
  if ((stat == RPC_CANTSEND || stat == RPC_CANTRECV || stat == RPC_SYSTEMERROR) && err.re_errno != 0)
    text += std::string(": ") + strerror(err.re_errno);
  return CallStatus::failure(kind_of(stat, err.re_errno), text);
}

}  // namespace rpclab::sunrpc
