// `rpclab dependability`: flags -> matrix -> cells -> records -> views.
#pragma once

#include <CLI/CLI.hpp>

namespace rpclab::harness {

// Adds the subcommand; returns a function that runs it after parsing.
std::function<int()> add_dependability_command(CLI::App& app);

}  // namespace rpclab::harness
