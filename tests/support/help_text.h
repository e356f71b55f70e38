// What a program's CLI11 --help says, read by tests: the commands it
// lists, so a test covers every command the program has, not a list
// written once.
#pragma once

#include <string>
#include <vector>

namespace rpclab::test {

// The commands `help` lists under "Subcommands:", in its order (none for a
// program without commands). Hidden ones (rpclab cell) are not listed.
std::vector<std::string> subcommands_in(const std::string& help);

}  // namespace rpclab::test
