// A command or program that could not be started, or that failed: what
// spawn(), run_checked() and ChildProcess throw.
#pragma once

#include <stdexcept>

namespace rpclab::process {

class CommandError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rpclab::process
