#include "netem/spec/backend_kind.h"

namespace rpclab::netem {

std::string backend_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::kNone: return "none";
    case BackendKind::kNetem: return "netem";
    case BackendKind::kUmlNetem: return "uml-netem";
    case BackendKind::kNftables: return "nftables";
  }
  return "none";
}

std::optional<BackendKind> parse_backend(const std::string& name) {
  for (auto k : {BackendKind::kNone, BackendKind::kNetem, BackendKind::kUmlNetem, BackendKind::kNftables})
    if (backend_name(k) == name) return k;
  return std::nullopt;
}

}  // namespace rpclab::netem
