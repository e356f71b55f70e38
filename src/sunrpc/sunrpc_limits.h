// libtirpc's numbers that the adapters and their tests share.
#pragma once

#include <cstddef>

namespace rpclab::sunrpc {

inline constexpr size_t kLibtirpcUdpBuffer = 8800;   // UDPMSGSIZE, libtirpc's default
inline constexpr size_t kMaxUdpBuffer = 65536;
inline constexpr int kLibtirpcRetryMs = 15000;       // clnt_dg's default retransmit interval
inline constexpr int kRpcgenTimeoutMs = 25000;       // the TIMEOUT rpcgen writes into stubs
// xid, direction, rpcvers, prog, vers, proc, AUTH_NONE cred and verifier,
// and the opaque's length word.
inline constexpr size_t kEchoCallOverhead = 44;
inline constexpr size_t kMaxIpv4UdpPayload = 65507;  // 65535 - IP header - UDP header

}  // namespace rpclab::sunrpc
