// The at-most-once table (Levy's third remedy; RIFL, SOSP 2015; NFSv4.1
// session slots): per client, the last completed seq and the reply it got.
// A repeat of that seq is answered from the table without running again;
// an older seq is refused as stale. Clients here make one call at a time
// and number them upwards, so the last completed call is all a client can
// still be waiting for.
//
// One server's own table (--at-most-once); the table several replicas
// share is in shared_at_most_once.h. Durability comes from the journal:
// ServerCore rebuilds the table from the executed records after a restart.
// Not thread-safe: ServerCore holds its lock around every use, and that
// lock also makes a repeat that arrives while its first copy runs wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "ops/next_reply.h"
#include "server/at_most_once_scope.h"

namespace rpclab {

class AtMostOnceTable : public AtMostOnceScope {
 public:
  Answer check(uint32_t client_id, uint32_t seq) const;
  // Records a completed execution. Only newer seqs replace the entry.
  void remember(uint32_t client_id, uint32_t seq, const NextReply& reply);
  size_t clients() const { return last_.size(); }

  // As a scope: the core's lock already covers the whole call, so a claim
  // is the check, and nothing is held to give back.
  Answer claim(uint32_t client_id, uint32_t seq, std::unique_lock<std::mutex>&) override {
    return check(client_id, seq);
  }
  void complete(uint32_t client_id, uint32_t seq, const NextReply& reply) override {
    remember(client_id, seq, reply);
  }
  void release(uint32_t, uint32_t) override {}
  void recover(uint32_t client_id, uint32_t seq, const NextReply& reply) override {
    remember(client_id, seq, reply);
  }

 private:
  struct Completed {
    uint32_t seq = 0;
    NextReply reply;
  };
  std::unordered_map<uint32_t, Completed> last_;
};

}  // namespace rpclab
