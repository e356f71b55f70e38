// src/server/: the one server core every transport's server calls into
// (this file), and what it keeps: the execution ledger, the durable
// journal and its reader, the at-most-once table (per server, or shared in
// Redis behind at_most_once_scope.h), a request's origin; and
// accept_rest.h for stream servers out of descriptors. May include common/
// and ops/; never transport/, client/ or an adapter.
//
// What every server does, whatever the transport: Levy's sequence check,
// the execution ledger, and, when asked, the durable execution journal and
// the at-most-once table for NEXT; byte-for-byte ECHO. Adapters decode a
// request, call in here, and encode what comes back. Thread-safe: gRPC's
// sync server calls it from several threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>
#include <unordered_map>

#include "server/at_most_once.h"
#include "server/at_most_once_scope.h"
#include "ops/kiraly.h"
#include "server/journal.h"
#include "server/ledger.h"
#include "ops/next_reply.h"
#include "server/request_origin.h"

namespace rpclab {

struct ServerCounters {
  uint64_t null_calls = 0;
  uint64_t next_calls = 0;  // NEXT requests this process answered, run or not
  uint64_t echo_calls = 0;
  uint64_t allman_calls = 0;  // Allman's four operations that ran (ops/allman.h)
  uint64_t record_calls = 0;  // Kiraly's GetRecord calls answered (ops/kiraly.h)
  uint64_t mismatches = 0;
  uint64_t answered_from_table = 0;  // at-most-once repeats answered without running
  uint64_t refused_stale = 0;        // at-most-once: older seqs refused
  // At-most-once: NEXT refused because the table could not be asked (the
  // shared table's Redis gone), so as not to run it unprotected; also a
  // call that ran but whose completion the table did not take.
  uint64_t table_unavailable = 0;
};

struct ServerCoreOptions {
  size_t ledger_max_bytes = Ledger::kDefaultMaxBytes;
  std::string journal_path;  // empty: no journal
  size_t journal_max_bytes = Journal::kDefaultMaxBytes;
  std::string transport;     // written into a new journal, checked against an old one
  bool at_most_once = false;  // the per-server table (AtMostOnceTable)
  // A table of another scope (SharedAtMostOnceTable, made by the program
  // that links it); when set, at_most_once is not read.
  std::shared_ptr<AtMostOnceScope> at_most_once_scope;
};

class ServerCore {
 public:
  explicit ServerCore(size_t ledger_max_bytes = Ledger::kDefaultMaxBytes);
  // With a journal that already holds records, the ledger, Levy's
  // expectations and the at-most-once table are rebuilt from it first.
  // Throws JournalError (damaged, another transport's), SetupError.
  explicit ServerCore(const ServerCoreOptions& options);
  ~ServerCore();

  // Levy's check: seq must equal the number expected from this client. On a
  // mismatch the expectation moves to max(expected, seq + 1), so each lost
  // or repeated call counts once instead of putting the counter out of step
  // for the rest of the run. With a journal, the call's record is sealed
  // before this returns, so before the adapter sends the reply. Throws
  // AtMostOnceUnavailable, without running the call, when the at-most-once
  // table cannot be asked.
  NextReply next(uint32_t client_id, uint32_t seq, const RequestOrigin& origin);
  NextReply next(uint32_t client_id, uint32_t seq) { return next(client_id, seq, RequestOrigin{}); }
  void count_null() { null_calls_.fetch_add(1, std::memory_order_relaxed); }
  void count_echo() { echo_calls_.fetch_add(1, std::memory_order_relaxed); }

  // Allman's operations (ops/allman.h): each returns why it refused the
  // call, or nothing once the result is written. A refused call is not
  // counted and runs nothing.
  bool is_prime(int32_t n);
  std::optional<std::string> average(const double* values, size_t n, double* mean);
  std::optional<std::string> get_rand_nums(int64_t count, std::vector<double>* out);
  std::optional<std::string> log_transform(const double* values, size_t n, std::vector<double>* out);
  // Kiraly's GetRecord (ops/kiraly.h): the record, or why not. The last
  // record served stays in memory, as Kiraly's server had its data loaded
  // before the clock started, so a repeated request only serialises.
  std::optional<std::string> get_record(int32_t id, int64_t photo_bytes, std::shared_ptr<const KiralyRecord>* out);

  ServerCounters counters() const;
  void write_ledger(const std::string& path) const;

 private:
  struct Arrival {
    int64_t realtime_ns = 0, monotonic_ns = 0;
  };
  NextReply answer_repeat(uint32_t client_id, uint32_t seq, const AtMostOnceScope::Answer& answer,
                          const RequestOrigin& origin, const Arrival& at);
  NextReply execute(uint32_t client_id, uint32_t seq, const RequestOrigin& origin, const Arrival& at);
  uint32_t expected_of(uint32_t client_id) const;
  void recover();
  void complete(uint32_t client_id, uint32_t seq, const NextReply* reply);

  mutable std::mutex mu_;
  Ledger ledger_;
  std::unordered_map<uint32_t, uint32_t> expected_;
  std::unique_ptr<Journal> journal_;       // null: no journal
  std::shared_ptr<AtMostOnceScope> table_; // null: at-most-once off
  ServerCounters counts_;                  // null and echo are the atomics below
  std::atomic<uint64_t> null_calls_{0};
  std::atomic<uint64_t> echo_calls_{0};
  std::atomic<uint64_t> allman_calls_{0};
  std::atomic<uint64_t> record_calls_{0};
  std::mutex record_mu_;
  std::shared_ptr<const KiralyRecord> last_record_;  // guarded by record_mu_
};

}  // namespace rpclab
