// A plain UDP probe for link tests: a reflector echoes every datagram; a
// sender sends numbered probes at a paced rate, counts the echoes, and at
// the end asks the reflector what it saw, so loss and duplication can be
// told apart per direction as the endpoints saw them.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace rpclab::netem {

struct SenderOptions {
  std::string host;
  uint16_t port = 0;
  int count = 20000;
  double rate_pps = 10000;  // paced: bursts would overflow socket buffers, not the link
  int size = 64;            // datagram bytes (at least the 24-byte header)
  int drain_ms = 500;       // how long to wait for late echoes after the last probe
};

struct ReflectorOptions {
  std::string host;
  uint16_t port = 0;
  std::string ready_file;  // written once the socket is bound
};

// Throws std::runtime_error on socket errors. The sender's JSON carries the
// reflector's own counts (asked for at the end) and the per-direction view.
nlohmann::json run_sender(const SenderOptions& options);
// Echoes until `stop` is set; returns what it saw.
nlohmann::json run_reflector(const ReflectorOptions& options, const std::atomic<bool>& stop);

// Loss and duplication of one direction from the counts its two ends saw.
nlohmann::json direction_view(uint64_t sent, uint64_t received, uint64_t unique);

}  // namespace rpclab::netem
