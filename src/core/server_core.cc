#include "core/server_core.h"

#include <algorithm>

#include "core/atomic_file.h"

namespace rpclab {

NextReply ServerCore::next(uint32_t client_id, uint32_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  ++next_calls_;
  NextReply reply;
  auto it = expected_.find(client_id);
  uint32_t expected = it == expected_.end() ? 0 : it->second;
  reply.expected_seq = expected;
  if (seq != expected) {
    reply.status = NextStatus::kOutOfOrder;
    ++mismatches_;
    ledger_.add_mismatch(client_id);
  }
  reply.times_executed = ledger_.record(client_id, seq);
  if (reply.times_executed == 0) reply.status = NextStatus::kNotRecorded;
  // seq + 1 wraps at UINT32_MAX; a sequence that long is not a run we make.
  uint32_t next_expected = std::max(expected, seq + 1);
  // Only clients the ledger holds are followed, so its cap bounds this map
  // too: garbage that decodes as NEXT with ever new client ids must not
  // grow it once the ledger is full.
  if (it != expected_.end()) it->second = next_expected;
  else if (ledger_.clients().count(client_id)) expected_.emplace(client_id, next_expected);
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
