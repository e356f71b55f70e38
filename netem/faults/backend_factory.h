// A FaultBackend of the kind chosen (choose_backend), on a topology.
#pragma once

#include <memory>

#include "netem/faults/fault_backend.h"

namespace rpclab::netem {

// nullptr for kNone; SpecError for kUmlNetem (see above) and for a loopback
// topology (faults there would touch the host's own lo).
std::unique_ptr<FaultBackend> make_backend(BackendKind kind, const Topology& topology, process::CommandLog& log);

}  // namespace rpclab::netem
