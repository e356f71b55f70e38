// Target ledger: a server's ledger file (Ledger::parse). A file is accepted
// or refused with LedgerError. An accepted ledger must answer every query
// without fault and survive serialize/parse with the same counts.
#include <string_view>

#include "server/ledger.h"
#include "fuzz_targets.h"

namespace rpclab::fuzz {

int fuzz_ledger(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Ledger ledger;
  try {
    ledger = Ledger::parse(bytes);
  } catch (const LedgerError&) {
    return 0;
  }
  Ledger again = Ledger::parse(ledger.serialize());
  RPCLAB_FUZZ_CHECK(again.unrecorded() == ledger.unrecorded(), "unrecorded changed");
  RPCLAB_FUZZ_CHECK(again.clients().size() == ledger.clients().size(), "client count changed");
  for (const auto& [id, entry] : ledger.clients()) {
    RPCLAB_FUZZ_CHECK(again.mismatches(id) == ledger.mismatches(id), "mismatches changed");
    RPCLAB_FUZZ_CHECK(again.total_executions(id) == ledger.total_executions(id), "executions changed");
    for (const auto& [index, chunk] : entry.chunks) {
      uint32_t first = index * Ledger::kChunkCalls;
      for (uint32_t seq = first; seq < first + Ledger::kChunkCalls; ++seq)
        RPCLAB_FUZZ_CHECK(again.count(id, seq) == ledger.count(id, seq), "a count changed");
    }
  }
  return 0;
}

}  // namespace rpclab::fuzz
