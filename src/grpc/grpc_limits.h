#pragma once

namespace rpclab::grpcx {

// gRPC has no deadline unless the caller sets one; rpclab sets rpcgen's 25 s
// so both systems give a call the same time by default.
inline constexpr int kDefaultDeadlineMs = 25000;
// The ECHO bound of idl/rpclab.x plus room for framing, on both sides.
inline constexpr int kMaxMessageBytes = (16 << 20) + 4096;

}  // namespace rpclab::grpcx
