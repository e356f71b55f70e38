// The at-most-once table (Levy's third remedy; RIFL, SOSP 2015; NFSv4.1
// session slots): per client, the last completed seq and the reply it got.
// A repeat of that seq is answered from the table without running again;
// an older seq is refused as stale. Clients here make one call at a time
// and number them upwards, so the last completed call is all a client can
// still be waiting for.
//
// Durability comes from the journal: ServerCore rebuilds the table from
// the executed records after a restart. Not thread-safe: ServerCore holds
// its lock around every use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "ops/next_reply.h"

namespace rpclab {

class AtMostOnceTable {
 public:
  enum class Verdict {
    kExecute,  // a seq newer than any completed: run it
    kRepeat,   // the last completed seq again: answer with its reply
    kStale,    // older than the last completed: refuse, do not run
  };
  struct Answer {
    Verdict verdict = Verdict::kExecute;
    NextReply reply;  // for kRepeat, the stored reply
  };

  Answer check(uint32_t client_id, uint32_t seq) const;
  // Records a completed execution. Only newer seqs replace the entry.
  void remember(uint32_t client_id, uint32_t seq, const NextReply& reply);
  size_t clients() const { return last_.size(); }

 private:
  struct Completed {
    uint32_t seq = 0;
    NextReply reply;
  };
  std::unordered_map<uint32_t, Completed> last_;
};

}  // namespace rpclab
