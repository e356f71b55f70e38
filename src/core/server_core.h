// What every server does, whatever the transport: Levy's sequence check and
// the execution ledger for NEXT, byte-for-byte ECHO. Adapters decode a
// request, call in here, and encode what comes back. Thread-safe: gRPC's
// sync server calls it from several threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/ledger.h"

namespace rpclab {

enum class NextStatus : uint32_t { kInOrder = 0, kOutOfOrder = 1, kNotRecorded = 2 };

struct NextReply {
  NextStatus status = NextStatus::kInOrder;
  uint32_t expected_seq = 0;    // what the server expected before this call
  uint32_t times_executed = 0;  // executions of (client, seq), this one included
};

struct ServerCounters {
  uint64_t null_calls = 0;
  uint64_t next_calls = 0;
  uint64_t echo_calls = 0;
  uint64_t mismatches = 0;
};

class ServerCore {
 public:
  explicit ServerCore(size_t ledger_max_bytes = Ledger::kDefaultMaxBytes)
      : ledger_(ledger_max_bytes) {}

  // Levy's check: seq must equal the number expected from this client. On a
  // mismatch the expectation moves to max(expected, seq + 1), so each lost
  // or repeated call counts once instead of putting the counter out of step
  // for the rest of the run.
  NextReply next(uint32_t client_id, uint32_t seq);
  void count_null() { null_calls_.fetch_add(1, std::memory_order_relaxed); }
  void count_echo() { echo_calls_.fetch_add(1, std::memory_order_relaxed); }

  ServerCounters counters() const;
  void write_ledger(const std::string& path) const;

 private:
  mutable std::mutex mu_;
  Ledger ledger_;
  std::unordered_map<uint32_t, uint32_t> expected_;
  uint64_t mismatches_ = 0;
  uint64_t next_calls_ = 0;
  std::atomic<uint64_t> null_calls_{0};
  std::atomic<uint64_t> echo_calls_{0};
};

}  // namespace rpclab
