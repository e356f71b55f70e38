// A program cannot be set up at all: a port in use, an address that does
// not resolve, a file that cannot be made. Thrown from below any transport
// (addresses, the journal, the server core), so it lives here; each program
// turns it into exit code 3 (kExitSetup).
#pragma once

#include <stdexcept>

namespace rpclab {

class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rpclab
