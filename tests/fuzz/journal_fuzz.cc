// Target journal: a server's execution journal (check_journal,
// ledger_from_journal). A file is accepted or refused with JournalError
// (LedgerError only past a ledger cap, which the fuzzer does not set). An
// accepted journal must visit exactly the sealed records it counted, and
// its ledger must hold exactly its executed records.
#include <string_view>

#include "server/journal_reader.h"
#include "fuzz_targets.h"

namespace rpclab::fuzz {

int fuzz_journal(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  JournalSummary summary;
  try {
    summary = check_journal(bytes);
  } catch (const JournalError&) {
    return 0;
  }
  uint64_t visited = 0, executed = 0;
  for_each_record(bytes, [&](const journal::Record& r) {
    ++visited;
    if (r.kind == static_cast<uint8_t>(journal::RecordKind::kExecuted)) ++executed;
  });
  RPCLAB_FUZZ_CHECK(visited == summary.sealed, "visited records differ from the sealed count");
  RPCLAB_FUZZ_CHECK(summary.sealed + summary.holes == summary.header.reserved, "slots unaccounted for");
  Ledger ledger;
  try {
    ledger = ledger_from_journal(bytes);
  } catch (const JournalError&) {
    return 0;  // counts that disagree: refused after the seal check
  }
  uint64_t total = 0;
  for (const auto& [id, entry] : ledger.clients()) total += ledger.total_executions(id);
  RPCLAB_FUZZ_CHECK(total == executed, "the ledger does not hold every executed record");
  RPCLAB_FUZZ_CHECK(ledger.unrecorded() == summary.header.unrecorded, "unrecorded changed");
  return 0;
}

}  // namespace rpclab::fuzz
