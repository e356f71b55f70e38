#include "netem/faults/link_counters.h"

namespace rpclab::netem {

namespace {

nlohmann::json direction_json(const DirectionCounters& d) {
  return {{"offered", d.offered},
          {"dropped", d.dropped},
          {"duplicated", d.duplicated},
          {"delivered", d.delivered},
          {"bytes_delivered", d.bytes_delivered}};
}

DirectionCounters minus(const DirectionCounters& a, const DirectionCounters& b) {
  return {a.offered - b.offered, a.dropped - b.dropped, a.duplicated - b.duplicated, a.delivered - b.delivered,
          a.bytes_delivered - b.bytes_delivered};
}

}  // namespace

nlohmann::json LinkCounters::to_json() const {
  return {{"to_server", direction_json(to_server)}, {"to_client", direction_json(to_client)}, {"source", source}};
}

MeasuredFaults measure(const LinkCounters& before, const LinkCounters& after, Direction direction) {
  DirectionCounters sum;
  auto add = [&sum](const DirectionCounters& d) {
    sum.offered += d.offered;
    sum.dropped += d.dropped;
    sum.duplicated += d.duplicated;
  };
  if (impairs(direction, Direction::kToServer)) add(minus(after.to_server, before.to_server));
  if (impairs(direction, Direction::kToClient)) add(minus(after.to_client, before.to_client));
  MeasuredFaults m;
  m.offered = sum.offered;
  if (sum.offered == 0) return m;
  // Loss is over what the link carried (copies included: they can be lost
  // too); duplication over what the senders offered.
  m.loss_pct = 100.0 * sum.dropped / static_cast<double>(sum.offered + sum.duplicated);
  m.dup_pct = 100.0 * sum.duplicated / static_cast<double>(sum.offered);
  return m;
}

}  // namespace rpclab::netem
