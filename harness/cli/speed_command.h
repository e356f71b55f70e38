// `rpclab speed`: Levy's timing table and what a call costs today.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace rpclab::harness {

std::function<int()> add_speed_command(CLI::App& app);

}  // namespace rpclab::harness
