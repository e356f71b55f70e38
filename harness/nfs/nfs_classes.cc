#include "harness/nfs/nfs_classes.h"

#include <stdexcept>

namespace rpclab::harness::nfs {

using rpclab::nfs::NfsCall;
using rpclab::nfs::NfsCallRecord;

NfsClass class_of(const NfsCall& call, bool effect_there) {
  if (call.nfs == "NFS3_OK") return effect_there ? NfsClass::kCorrect : NfsClass::kLost;
  std::optional<std::string> replay = rpclab::nfs::replay_status(call.op);
  if (replay && call.nfs == *replay && effect_there) return NfsClass::kReplayedToldFailure;
  return effect_there ? NfsClass::kIndeterminate : NfsClass::kCleanFailure;
}

NfsClassCounts classify(const NfsCallRecord& record, const std::set<std::string>& names_there) {
  NfsClassCounts counts;
  const auto& calls = record.calls;
  for (size_t i = 0; i < calls.size(); ++i) {
    const NfsCall& c = calls[i];
    bool last_of_step = i + 1 == calls.size() || calls[i + 1].seq != c.seq || calls[i + 1].name != c.name;
    bool creator_ok = i > 0 && calls[i - 1].seq == c.seq && calls[i - 1].name == c.name &&
                      rpclab::nfs::creates(calls[i - 1].op) && calls[i - 1].nfs == "NFS3_OK";
    if (!last_of_step || rpclab::nfs::idempotent(c.op) || (!rpclab::nfs::creates(c.op) && !creator_ok)) {
      counts.add(NfsClass::kNotJudged);
      continue;
    }
    bool exists = names_there.count(c.name) > 0;
    counts.add(class_of(c, rpclab::nfs::creates(c.op) ? exists : !exists));
  }
  return counts;
}

}  // namespace rpclab::harness::nfs
