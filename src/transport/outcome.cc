#include "transport/outcome.h"

#include <array>

namespace rpclab {
namespace {

constexpr std::array<std::string_view, kErrorKindCount> kNames = {
    "ok", "timeout", "unavailable", "cannot_send", "cannot_receive", "cannot_code", "other",
};

}  // namespace

std::string_view error_kind_name(ErrorKind kind) {
  auto i = static_cast<size_t>(kind);
  return i < kNames.size() ? kNames[i] : "other";
}

std::optional<ErrorKind> parse_error_kind(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<ErrorKind>(i);
  return std::nullopt;
}

}  // namespace rpclab
