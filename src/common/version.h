// This build's version and the commit it was built from, for --version and
// for the records. The definitions are made at build time
// (cmake/write_version.cmake), so a new commit recompiles one object only.
#pragma once

#include <string>

namespace rpclab {

const char* version();     // the project VERSION in CMakeLists.txt, e.g. "0.9.0"
const char* git_commit();  // `git describe --always --dirty`, or "unknown" outside a git checkout

// "rpclab-client 0.9.0 (git abc1234)"
inline std::string version_line(const std::string& program) {
  return program + " " + version() + " (git " + git_commit() + ")";
}

}  // namespace rpclab
