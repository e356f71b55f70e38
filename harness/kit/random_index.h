// An index drawn uniformly from [0, n), the same on every machine and
// compiler: mt19937_64 is specified bit for bit, std::uniform_int_distribution
// is not. Used where a recorded seed must give the same draws again (the
// bootstrap's resamples, the run's trial order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

namespace rpclab::harness {

inline size_t random_index(std::mt19937_64& rng, size_t n) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // rejects the top sliver that would favour small indices
  uint64_t x;
  do x = rng();
  while (x >= limit);
  return static_cast<size_t>(x % n);
}

}  // namespace rpclab::harness
