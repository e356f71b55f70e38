#include "server/at_most_once.h"

namespace rpclab {

AtMostOnceTable::Answer AtMostOnceTable::check(uint32_t client_id, uint32_t seq) const {
  auto it = last_.find(client_id);
  if (it == last_.end() || seq > it->second.seq) return {};
  if (seq == it->second.seq) return {Verdict::kRepeat, it->second.reply};
  return {Verdict::kStale, {}};
}

void AtMostOnceTable::remember(uint32_t client_id, uint32_t seq, const NextReply& reply) {
  auto [it, added] = last_.try_emplace(client_id, Completed{seq, reply});
  if (!added && seq > it->second.seq) it->second = Completed{seq, reply};
}

}  // namespace rpclab
