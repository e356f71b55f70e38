// `rpclab time-constants RUN_DIR...`: the constants a plan's estimate of
// its time is made from (harness/run/time_estimate.h), measured again from
// the trials.jsonl of named runs, so they are never typed by hand.
#pragma once

#include <functional>

#include "common/cli_forward.h"

namespace rpclab::harness {

std::function<int()> add_time_constants_command(CLI::App& app);

}  // namespace rpclab::harness
