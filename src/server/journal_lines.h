// The lines journal: the execution journal's second form, for adapters
// (docs/adapters.md, "The lines journal"). Text, one JSON object per line,
// appended by a server in any language with one write(2) per line before
// the reply; read here into the binary form's own records, so the ledger,
// the join and the causes see an adapter's executions as they see those
// of rpclab-server.
//
//   {"format":"rpclab-journal-lines","version":1,"transport":"thrift"}
//   {"start":1,"pid":4242}
//   {"exec":[client_id,seq,status,expected_seq,times_executed], "request_id":..., ...}
//
// A record counts once its newline is written: a last line without one, or
// a line that does not parse and is the last of a server's life, is a call
// a SIGKILL cut short (a hole, at most one per start); anything else that
// does not read is damage, refused with its line number.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/journal_format.h"

namespace rpclab {

inline constexpr std::string_view kJournalLinesFormat = "rpclab-journal-lines";
inline constexpr int kJournalLinesVersion = 1;

struct JournalLines {
  std::string transport;
  uint32_t starts = 0;
  uint64_t holes = 0;                   // torn lines skipped
  std::vector<journal::Record> records;  // in line order, each sealed, `index` its number among them
};

// Throws JournalError (journal_error.h) naming the line.
JournalLines parse_journal_lines(std::string_view text);
// Whether `bytes` look like the lines form rather than the binary one.
bool is_journal_lines(std::string_view bytes);

}  // namespace rpclab
