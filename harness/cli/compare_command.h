// `rpclab compare RUN_A RUN_B`: two run folders cell by cell (run_compare.h),
// as aligned text, JSON (--format json) or an HTML page (--html FILE).
// Exit 0 when no matched cell differs at --alpha, 1 when one does, 2 on
// bad input, 3 when a figure asked about could not be tested (cannot
// tell), 5 when the --html page cannot be written: a regression gate.
#pragma once

#include <functional>

#include "common/cli_forward.h"

namespace rpclab::harness {

std::function<int()> add_compare_command(CLI::App& app);

}  // namespace rpclab::harness
