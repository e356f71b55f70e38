// What to do to the link and the server: one small value type, from flags
// or from a named profile in netem/profiles/ (a plain KEY=VALUE file).
// Steady faults (loss, dup, delay, ...) stay on the link for the whole
// trial; each is a row of the field table (fault_fields.h). Timed events
// (partition, reset, server crash and stall) happen at times relative to
// the clients' start (fault_events.h). Validation rejects anything out of
// range with a message naming the field and the range.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netem/faults/backend_kind.h"
#include "netem/events/fault_events.h"

namespace rpclab::netem {

class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

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

  bool empty() const;                     // no impairment and no event at all
  bool has_link_faults() const;           // steady faults or link events: needs a fault backend
  // The words ("delay", "reset") of what this spec asks that `kind` cannot
  // apply; empty when it can apply all of it.
  std::vector<std::string> unsupported_by(BackendKind kind) const;
  void validate() const;                  // throws SpecError
  nlohmann::json to_json() const;         // "events" only when there are some
  static FaultSpec from_json(const nlohmann::json& j);  // throws SpecError
  std::string summary() const;            // "loss 5% dup 1% both partition at 2000ms for 2000ms"
};

// KEY=VALUE lines, '#' comments. Keys: the field table's profile keys
// (loss, loss_corr, ge_p, ge_r, ge_1h, ge_1k, dup, delay_ms, jitter_ms,
// reorder, corrupt, rate, direction, seed), and `event`, which may repeat
// (`event = partition at=2s for=2s every=5s`). Unknown keys and bad values
// throw SpecError with the line number.
FaultSpec parse_profile(const std::string& text, const std::string& name);
// A name in netem/profiles/ (e.g. "lossy-lan") or a path to such a file.
FaultSpec load_profile(const std::string& name_or_path);
// $RPCLAB_PROFILES_DIR if set, else share/rpclab/profiles when installed,
// else netem/profiles of the source tree.
std::string profiles_dir();

}  // namespace rpclab::netem
