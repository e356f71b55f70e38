// The one interface ServerCore asks for at-most-once, whatever the table's
// scope: the per-server table (at_most_once.h, --at-most-once) or the
// table every replica shares in Redis (shared_at_most_once.h,
// --at-most-once-shared). Per NEXT, under ServerCore's lock: claim() says
// whether to run the call, and a call that ran is then complete()d, or
// release()d when it ran past the journal's or the ledger's cap.
#pragma once

#include <cstdint>
#include <mutex>
#include <stdexcept>

#include "ops/next_reply.h"

namespace rpclab {

// The table could not be asked (its Redis is gone): the call is refused,
// not run unprotected. Adapters answer it with their library's error.
class AtMostOnceUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AtMostOnceScope {
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

  virtual ~AtMostOnceScope() = default;
  // Called with ServerCore's lock held in `core_lock`. A scope that has to
  // wait for another server's copy of the call unlocks it while it waits
  // and locks it again before it returns. Throws AtMostOnceUnavailable.
  virtual Answer claim(uint32_t client_id, uint32_t seq, std::unique_lock<std::mutex>& core_lock) = 0;
  // The call ran and its record is sealed: only newer seqs replace the
  // entry. Throws AtMostOnceUnavailable.
  virtual void complete(uint32_t client_id, uint32_t seq, const NextReply& reply) = 0;
  // The call ran but is not remembered (past a cap): give up the claim.
  virtual void release(uint32_t client_id, uint32_t seq) = 0;
  // An execution read back from the journal after a restart.
  virtual void recover(uint32_t client_id, uint32_t seq, const NextReply& reply) = 0;
};

}  // namespace rpclab
