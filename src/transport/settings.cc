#include "transport/settings.h"

namespace rpclab {

std::optional<int64_t> TransportSettings::get(const TransportSetting& s) const {
  auto it = values_.find(std::string(s.name));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

void TransportSettings::set(const TransportSetting& s, std::optional<int64_t> value) {
  if (!value || *value == 0)
    values_.erase(std::string(s.name));
  else
    values_[std::string(s.name)] = s.numeric() ? *value : 1;
}

}  // namespace rpclab
