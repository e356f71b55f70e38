#include "support/help_text.h"

#include <sstream>

namespace rpclab::test {

std::vector<std::string> subcommands_in(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream in(help);
  bool listing = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Subcommands:") listing = true;
    else if (line.empty()) listing = false;
    else if (listing && line.rfind("  ", 0) == 0 && line[2] != ' ')
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

}  // namespace rpclab::test
