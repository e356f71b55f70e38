#include "netem/spec/fault_spec.h"

namespace rpclab::netem {

std::string direction_name(Direction d) {
  switch (d) {
    case Direction::kToServer: return "to-server";
    case Direction::kToClient: return "to-client";
    case Direction::kBoth: return "both";
  }
  return "both";
}

std::optional<Direction> parse_direction(const std::string& name) {
  if (name == "to-server") return Direction::kToServer;
  if (name == "to-client") return Direction::kToClient;
  if (name == "both") return Direction::kBoth;
  return std::nullopt;
}

}  // namespace rpclab::netem
