// Why each extra execution happened, as the records hold it (`causes`): one
// count per cause, the cascades and what started them, and the wire
// capture the causes came from. How a cause is decided:
// harness/causes/attribution.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/record/maybe_null.h"

namespace rpclab::harness {

// The last three happen only on a path with several replicas
// (harness/paths/path_causes.h): an execution on another replica than the
// call's first because a proxy retried it upstream, because the client's
// library re-sent it and the client's balancer picked another replica, or
// because a datagram balancer sent a retransmission to another replica.
enum class Cause {
  kNetworkCopy,
  kRetransmitTimeout,
  kStaleReplyResend,
  kLibraryRetry,
  kAppRetry,
  kProxyRetry,
  kClientElsewhere,
  kBalancerElsewhere,
  kUnexplained
};
inline constexpr size_t kCauseCount = 9;

struct CauseRow {
  Cause cause;
  std::string_view key;     // the record's `causes` key (stable)
  std::string_view column;  // the text table's short header
  // Only a path of several replicas has it: its key is written and its
  // column shown only where it counted something (records and tables of
  // single-server cells stay as they were).
  bool path_only = false;
};
// One row per cause, in report order.
const std::array<CauseRow, kCauseCount>& cause_rows();

struct CauseCounts {
  std::array<uint64_t, kCauseCount> n{};
  uint64_t& operator[](Cause c) { return n[static_cast<size_t>(c)]; }
  uint64_t operator[](Cause c) const { return n[static_cast<size_t>(c)]; }
  uint64_t total() const;
  CauseCounts& operator+=(const CauseCounts& o);
};
// {"network_copy": N, ...}, every key; a missing key reads 0.
void to_json(nlohmann::json& j, const CauseCounts& c);
void from_json(const nlohmann::json& j, CauseCounts& c);

// A cascade: two or more consecutive calls of one client (seq N, N+1, ...)
// that each ran more than once, as a stale reply to call N makes the client resend
// N+1 at once, whose extra reply does the same to N+2. What started it is
// the cause of its first call's first extra execution: a network copy or
// a timer's retransmission (the late reply), or a stale-reply resend when
// the stale reply was itself the network's copy of a reply.
struct Cascades {
  uint64_t count = 0;
  CauseCounts started_by;  // started_by.total() == count
  uint64_t longest = 0;    // calls in the longest one (0: none)
  Cascades& operator+=(const Cascades& o);  // over trials: counts added, the longest kept
};

// A trial's or a cell's `causes` object.
struct CausesRecord {
  CauseCounts counts;
  std::optional<Cascades> cascades;  // `cascades`, `cascade_starts`, `longest_cascade`; none in older records
  // The capture's backend (bpf, nflog, ...) or why there was none; a
  // cell's joins its trials' words.
  std::string capture;
  MaybeNull<uint64_t> capture_packets;  // a trial's: datagrams in its wire.bin (null: no capture)
  MaybeNull<uint64_t> capture_drops;    // packets the capture lost (null: no capture)
};
void to_json(nlohmann::json& j, const CausesRecord& c);
void from_json(const nlohmann::json& j, CausesRecord& c);

}  // namespace rpclab::harness
