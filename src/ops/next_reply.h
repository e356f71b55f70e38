// What the server answers to NEXT, on every transport (idl/rpclab.x,
// idl/rpclab.proto and raw_frame.h carry the same three fields).
#pragma once

#include <cstdint>

namespace rpclab {

enum class NextStatus : uint32_t {
  kInOrder = 0,      // seq was the number the server expected
  kOutOfOrder = 1,   // Levy's mismatch: a lost or repeated call
  kNotRecorded = 2,  // the ledger or journal is full; the call still ran
  kStale = 3,        // at-most-once: older than the client's last completed seq; not run
};
inline constexpr uint32_t kLastNextStatus = static_cast<uint32_t>(NextStatus::kStale);

struct NextReply {
  NextStatus status = NextStatus::kInOrder;
  uint32_t expected_seq = 0;    // what the server expected before this call
  uint32_t times_executed = 0;  // executions of (client, seq), this one included
};

}  // namespace rpclab
