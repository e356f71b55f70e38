// What the tests of rpclab's fit with other tools share: Debian's own
// python3 (a pyenv or venv python3 earlier on PATH has not the Debian
// modules), and whole files read back.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.h"

namespace rpclab::test {

inline const std::string kDebianPython = "/usr/bin/python3";

// "" when Debian's python3 imports every module, else why not and the fix.
inline std::string python_lacks(const std::vector<std::string>& modules, const std::string& packages) {
  std::string imports;
  for (const std::string& m : modules) imports += "import " + m + "\n";
  ProcessResult r = run_program({kDebianPython, "-c", imports}, std::chrono::seconds(60));
  if (r.exit_code == 0) return "";
  return kDebianPython + " cannot import " + imports.substr(7, imports.find('\n') - 7) + "...: " + r.err +
         " (tools/deps.sh test installs them: apt-get install " + packages + ")";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace rpclab::test
