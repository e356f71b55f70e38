// Reading an execution journal (journal_format.h): checking it, visiting
// its records, and the ledger it implies. The server reads its own journal
// this way on restart, and the harness reads a cell's journal this way, so
// both see the same executions.
//
// A damaged journal is refused with a JournalError that says what is wrong
// and where, never merged into plausible counts. What a SIGKILL can leave
// is not damage: an unsealed slot (at most one per server start) is a call
// that did not complete, and is skipped.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "server/journal_error.h"
#include "server/journal_format.h"
#include "server/ledger.h"

namespace rpclab {

struct JournalSummary {
  journal::Header header{};
  uint64_t sealed = 0;  // completed records
  uint64_t holes = 0;   // slots a killed server left unsealed
};

// Checks the header, every slot handed out, and that nothing past them is
// sealed. Throws JournalError.
JournalSummary check_journal(std::string_view bytes);
// Calls `visit` on each sealed record in slot order. `bytes` must have
// passed check_journal.
void for_each_record(std::string_view bytes, const std::function<void(const journal::Record&)>& visit);

// The ledger the journal implies: one execution per executed record,
// Levy's mismatches from their status, and the header's unrecorded count.
// Either form: the binary one, or the lines an adapter writes
// (journal_lines.h), told apart by their first byte.
// Throws JournalError when the journal is damaged or a record's execution
// count disagrees with the records before it, LedgerError past the cap.
Ledger ledger_from_journal(std::string_view bytes, size_t ledger_max_bytes = SIZE_MAX);

// Every record of a journal of either form, sealed ones only, in order.
// Throws JournalError.
std::vector<journal::Record> journal_records(std::string_view bytes);

// A journal file mapped read-only for the life of the object.
class JournalFile {
 public:
  explicit JournalFile(const std::string& path);  // throws JournalError
  ~JournalFile();
  JournalFile(const JournalFile&) = delete;
  JournalFile& operator=(const JournalFile&) = delete;
  std::string_view bytes() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

// ledger_from_journal on a file; errors name the file.
Ledger read_journal_ledger(const std::string& path);
// journal_records on a file; errors name the file.
std::vector<journal::Record> read_journal_records(const std::string& path);

// The file names a trial's server journals to: rpclab-server's binary
// form, an adapter's lines (docs/adapters.md).
inline constexpr std::string_view kJournalBinaryName = "journal.bin";
inline constexpr std::string_view kJournalLinesName = "journal.jsonl";
// The journal in a trial's folder `dir`: its lines when an adapter wrote
// them, else journal.bin.
std::string journal_in(const std::string& dir);

// Slots handed out so far, read from the header of a journal a server may
// still be writing (tests wait on it). 0 when the file does not exist yet.
uint64_t journal_reserved(const std::string& path);

}  // namespace rpclab
