// What to do to the link and the server: one small value type, from flags
// or from a named profile in netem/profiles/ (a plain KEY=VALUE file).
// Steady faults (loss, dup, delay, ...) stay on the link for the whole
// trial; each is a row of the field table (fault_fields.h). Timed events
// (partition, reset, server crash and stall) happen at times relative to
// the clients' start (fault_event.h).
//
// Plain values only, so everything that applies faults can sit above them.
// What the field table says of a whole spec (empty, what a backend cannot
// apply): fault_fields.h. Reading, checking and writing a spec (profiles,
// JSON, validate, summary): netem/config/fault_config.h and fault_profile.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netem/spec/fault_event.h"

namespace rpclab::netem {

enum class Direction { kToServer, kToClient, kBoth };
std::string direction_name(Direction d);  // "to-server" | "to-client" | "both"
std::optional<Direction> parse_direction(const std::string& name);
// Whether `direction` includes `one` (kToServer or kToClient).
inline bool impairs(Direction direction, Direction one) {
  return direction == Direction::kBoth || direction == one;
}

struct FaultSpec {
  std::string profile;             // the profile's name, or "" when built from flags
  double loss_pct = 0;             // 0..100
  double loss_corr_pct = 0;        // 0..100, netem's loss correlation
  // Gilbert-Elliott (netem "loss gemodel p r 1-h 1-k"); when set, loss_pct is unused.
  std::optional<double> ge_p_pct, ge_r_pct, ge_1h_pct, ge_1k_pct;
  double dup_pct = 0;              // 0..100
  double delay_ms = 0;             // 0..60000
  double jitter_ms = 0;            // 0..delay_ms
  double reorder_pct = 0;          // 0..100 (needs delay > 0, as netem does)
  double corrupt_pct = 0;          // 0..100
  std::string rate;                // "" or a tc rate such as "100mbit"
  Direction direction = Direction::kBoth;
  std::optional<uint64_t> seed;    // requested; whether it could be applied is in the result;
                                   // also draws the events' start jitter (0 when unset)
  std::vector<FaultEvent> events;  // timed: partition, reset, server-crash, server-stall
};

}  // namespace rpclab::netem
