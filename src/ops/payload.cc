#include "ops/payload.h"

namespace rpclab {

std::string make_payload(size_t size, uint32_t seed) {
  std::string payload(size, '\0');
  for (size_t i = 0; i < size; ++i) payload[i] = static_cast<char>((i * 131 + seed) & 0xff);
  return payload;
}

}  // namespace rpclab
