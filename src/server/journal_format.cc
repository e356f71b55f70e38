#include "server/journal_format.h"

#include <boost/crc.hpp>

namespace rpclab::journal {

uint32_t seal_of(const Record& record) {
  boost::crc_32_type crc;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&record);
  crc.process_bytes(bytes + sizeof record.seal, sizeof record - sizeof record.seal);
  uint32_t seal = crc.checksum();
  return seal == 0 ? 1 : seal;
}

}  // namespace rpclab::journal
