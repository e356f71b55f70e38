#include "core/server_core.h"

#include <algorithm>

#include "core/atomic_file.h"

namespace rpclab {

NextReply ServerCore::next(uint32_t client_id, uint32_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  ++next_calls_;
  NextReply reply;
  uint32_t& expected = expected_[client_id];
  reply.expected_seq = expected;
  if (seq != expected) {
    reply.status = NextStatus::kOutOfOrder;
    ++mismatches_;
    ledger_.add_mismatch(client_id);
  }
  // seq + 1 wraps at UINT32_MAX; a sequence that long is not a run we make.
  expected = std::max(expected, seq + 1);
  reply.times_executed = ledger_.record(client_id, seq);
  if (reply.times_executed == 0) reply.status = NextStatus::kNotRecorded;
  return reply;
}

ServerCounters ServerCore::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  ServerCounters c;
  c.null_calls = null_calls_.load(std::memory_order_relaxed);
  c.next_calls = next_calls_;
  c.echo_calls = echo_calls_.load(std::memory_order_relaxed);
  c.mismatches = mismatches_;
  return c;
}

void ServerCore::write_ledger(const std::string& path) const {
  std::string bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    bytes = ledger_.serialize();
  }
  write_file_atomically(path, bytes);
}

}  // namespace rpclab
