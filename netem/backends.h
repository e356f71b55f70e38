// The two FaultBackend implementations, for make_backend(). Internal.
#pragma once

#include <memory>

#include "netem/fault_backend.h"

namespace rpclab::netem::detail {

std::unique_ptr<FaultBackend> make_netem_backend(const Topology& topology, CommandLog& log);
std::unique_ptr<FaultBackend> make_nft_backend(const Topology& topology, CommandLog& log);

// Whether `direction` includes `one` (kToServer or kToClient).
inline bool impairs(Direction direction, Direction one) {
  return direction == Direction::kBoth || direction == one;
}

}  // namespace rpclab::netem::detail
