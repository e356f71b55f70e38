// Who makes the faults, as a value the fault tables can name: every field
// and event kind lists the backends that can apply it (backend_bit()s), and
// choose_backend (netem/config/backend_choice.h) reads those lists.
#pragma once

#include <optional>
#include <string>

namespace rpclab::netem {

enum class BackendKind { kNone, kNetem, kUmlNetem, kNftables };

std::string backend_name(BackendKind kind);  // "none" | "netem" | "uml-netem" | "nftables"
// The names above; "auto" is not a kind (choose_backend resolves it).
std::optional<BackendKind> parse_backend(const std::string& name);

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

// A backend chosen, and why (written into every result).
struct Choice {
  BackendKind kind = BackendKind::kNone;
  std::string reason;  // why this one ("host kernel has no sch_netem; spec asks only loss/dup")
};

}  // namespace rpclab::netem
