// `rpclab adapter check|build|list [NAME]`: rows made from outside
// (docs/adapters.md). check runs the conformance steps of
// harness/adapters/adapter_check.h and exits 0 only when all pass.
#pragma once

#include <functional>

#include "common/cli_forward.h"

namespace rpclab::harness {

std::function<int()> add_adapter_command(CLI::App& app);

}  // namespace rpclab::harness
