// What to do to the link: one small value type, from flags or from a named
// profile in netem/profiles/ (a plain KEY=VALUE file). Validation rejects
// anything out of range with a message naming the field and the range.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace rpclab::netem {

class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class Direction { kToServer, kToClient, kBoth };
std::string direction_name(Direction d);  // "to-server" | "to-client" | "both"
std::optional<Direction> parse_direction(const std::string& name);

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
  std::optional<uint64_t> seed;    // requested; whether it could be applied is in the result

  bool empty() const;                     // no impairment at all
  bool only_loss_and_dup() const;         // what the nftables backend can do
  void validate() const;                  // throws SpecError
  nlohmann::json to_json() const;
  static FaultSpec from_json(const nlohmann::json& j);  // throws SpecError
  std::string summary() const;            // "loss 5% dup 1% both"
};

// KEY=VALUE lines, '#' comments. Keys: loss, loss_corr, ge_p, ge_r, ge_1h,
// ge_1k, dup, delay_ms, jitter_ms, reorder, corrupt, rate, direction, seed.
// Unknown keys and bad values throw SpecError with the line number.
FaultSpec parse_profile(const std::string& text, const std::string& name);
// A name in netem/profiles/ (e.g. "lossy-lan") or a path to such a file.
FaultSpec load_profile(const std::string& name_or_path);
std::string profiles_dir();  // netem/profiles of this source tree

}  // namespace rpclab::netem
