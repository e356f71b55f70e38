// The bytes an operation carries where their value does not matter, only
// that both ends can make them: ECHO's payload and Kiraly's photo. The
// same for the same (size, seed), so a reply can be checked byte for byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rpclab {

std::string make_payload(size_t size, uint32_t seed);

}  // namespace rpclab
