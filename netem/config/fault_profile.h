// Named fault profiles: netem/profiles/<name>.profile, KEY=VALUE lines,
// read into a validated FaultSpec.
#pragma once

#include <string>

#include "netem/spec/fault_spec.h"

namespace rpclab::netem {

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
