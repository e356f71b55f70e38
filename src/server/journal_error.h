// A journal that does not read (either form: journal_format.h's binary
// one, journal_lines.h's lines): what is wrong and where.
#pragma once

#include <stdexcept>

namespace rpclab {

class JournalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rpclab
