// Who makes the faults, as a value the fault tables can name: every field
// and event kind lists the backends that can apply it (backend_bit()s), and
// choose_backend reads those lists. Names and parsing: fault_backend.h.
#pragma once

namespace rpclab::netem {

enum class BackendKind { kNone, kNetem, kUmlNetem, kNftables };

// One bit per way of applying faults. uml-netem is netem inside a guest:
// what netem can apply, it can.
constexpr unsigned backend_bit(BackendKind kind) {
  switch (kind) {
    case BackendKind::kNetem:
    case BackendKind::kUmlNetem: return 1u;
    case BackendKind::kNftables: return 2u;
    case BackendKind::kNone: break;
  }
  return 0u;
}
inline constexpr unsigned kByNetem = backend_bit(BackendKind::kNetem);
inline constexpr unsigned kByNftables = backend_bit(BackendKind::kNftables);

}  // namespace rpclab::netem
