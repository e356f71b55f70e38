// The FaultBackend of nftables on this kernel, for make_backend(). Internal.
#pragma once

#include <memory>

#include "netem/faults/fault_backend.h"

namespace rpclab::netem::detail {

std::unique_ptr<FaultBackend> make_nft_backend(const Topology& topology, process::CommandLog& log);

}  // namespace rpclab::netem::detail
