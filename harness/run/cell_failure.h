// A cell that cannot finish: recorded as failed with this reason, and the run
// goes on to the next cell.
#pragma once

#include <stdexcept>

namespace rpclab::harness {

class CellFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The user asked to stop (SIGINT/SIGTERM): the cell is dropped, not recorded,
// so --resume runs it again.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

}  // namespace rpclab::harness
