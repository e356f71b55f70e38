// What every reader of a fault spec throws when the spec is wrong: a
// field out of range, an unknown key or event kind, a backend that cannot
// apply what was asked. Its message names the field and says the fix.
#pragma once

#include <stdexcept>

namespace rpclab::netem {

class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace rpclab::netem
