// A header that only names CLI::App in a signature includes this instead of
// <CLI/CLI.hpp>: CLI11 2.1 is header-only and costs several seconds a file,
// and most files that see these signatures never touch a flag. The file
// that adds or reads flags includes <CLI/CLI.hpp> itself.
#pragma once

namespace CLI {
class App;
}  // namespace CLI
