#include "netem/faults/backend_factory.h"

#include "netem/faults/netem_backend.h"
#include "netem/faults/nft_backend.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {

std::unique_ptr<FaultBackend> make_backend(BackendKind kind, const Topology& topology, process::CommandLog& log) {
  if (topology.kind() != TopologyKind::kTwoHost)
    throw SpecError("faults need the two-host topology: on loopback they would touch the host's own lo");
  switch (kind) {
    case BackendKind::kNetem: return detail::make_netem_backend(topology, log);
    case BackendKind::kNftables: return detail::make_nft_backend(topology, log);
    case BackendKind::kUmlNetem:
      throw SpecError("uml-netem is not applied from outside: run the cell in a guest (run_in_guest) with netem");
    case BackendKind::kNone: break;
  }
  return nullptr;
}

}  // namespace rpclab::netem
