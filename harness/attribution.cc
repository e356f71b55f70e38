#include "harness/attribution.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "core/journal_format.h"

namespace rpclab::harness {

const std::array<CauseRow, 6>& cause_rows() {
  static const std::array<CauseRow, 6> rows = {{
      {Cause::kNetworkCopy, "network_copy", "copy"},
      {Cause::kRetransmitTimeout, "retransmit_timeout", "rexmit"},
      {Cause::kStaleReplyResend, "stale_reply_resend", "stale"},
      {Cause::kLibraryRetry, "library_retry", "lib"},
      {Cause::kAppRetry, "app_retry", "app"},
      {Cause::kUnexplained, "unexplained", "unexpl"},
  }};
  return rows;
}

uint64_t CauseCounts::total() const {
  uint64_t t = 0;
  for (uint64_t k : n) t += k;
  return t;
}

CauseCounts& CauseCounts::operator+=(const CauseCounts& o) {
  for (size_t i = 0; i < n.size(); ++i) n[i] += o.n[i];
  return *this;
}

nlohmann::json CauseCounts::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const CauseRow& r : cause_rows()) j[std::string(r.key)] = (*this)[r.cause];
  return j;
}

CauseCounts CauseCounts::from_json(const nlohmann::json& j) {
  CauseCounts c;
  for (const CauseRow& r : cause_rows()) c[r.cause] = j.value(std::string(r.key), uint64_t{0});
  return c;
}

namespace {

using Key = std::pair<uint16_t, uint32_t>;  // (client port, XID); port 0: any

// The wire, indexed: for each (port, xid), the copies the duplication
// rule made and why the client sent it again. Port 0 stands for "any
// port", used when the journal could not tell the sender's port.
class WireIndex {
 public:
  WireIndex(const Wire& wire, bool drains) {
    std::map<uint16_t, std::vector<size_t>> by_port;
    for (size_t i = 0; i < wire.packets.size(); ++i) {
      const WirePacket& p = wire.packets[i];
      for (uint16_t port : {p.client_port, uint16_t{0}}) {
        by_port[port].push_back(i);
        if (p.kind == WireKind::kCopy) ++resends_[{port, p.xid}][Cause::kNetworkCopy];
      }
    }
    for (const auto& [port, seen] : by_port) read_socket(wire.packets, port, seen, drains);
  }

  // The causes of `repeats` executions of one XID beyond its first.
  std::vector<Cause> causes_of(const Key& key, size_t repeats) const {
    auto it = resends_.find(key);
    if (!sent_.count(key) || it == resends_.end()) return std::vector<Cause>(repeats, Cause::kUnexplained);
    return certain_causes(it->second, repeats);
  }

 private:
  // The client's socket, replayed: it reads the replies in the order they
  // arrived, one call at a time. libtirpc's clnt_dg_call sends the call
  // again at once for each reply to another XID it reads (XID mismatch ->
  // send_again: a stale-reply resend) and ends the call at its own reply;
  // the call's other transmissions were its retransmit timer's. With
  // --drain, the client first throws away what arrived before the call.
  void read_socket(const std::vector<WirePacket>& packets, uint16_t port, const std::vector<size_t>& seen,
                   bool drains) {
    std::vector<size_t> replies;
    std::vector<std::pair<uint32_t, size_t>> calls;  // XID, its first transmission, in order
    std::map<uint32_t, uint64_t> sends;
    for (size_t i : seen) {
      const WirePacket& p = packets[i];
      if (p.kind == WireKind::kReply) replies.push_back(i);
      if (p.kind == WireKind::kSent && sends[p.xid]++ == 0) calls.push_back({p.xid, i});
    }
    size_t next = 0;  // the first reply the client has not read
    for (const auto& [xid, first] : calls) {
      sent_.insert({port, xid});
      if (drains)
        while (next < replies.size() && replies[next] < first) ++next;
      uint64_t again = sends[xid] - 1, stale = 0;
      while (next < replies.size() && packets[replies[next]].xid != xid && stale < again) ++stale, ++next;
      if (next < replies.size() && packets[replies[next]].xid == xid) ++next;
      CauseCounts& c = resends_[{port, xid}];
      c[Cause::kStaleReplyResend] += stale;
      c[Cause::kRetransmitTimeout] += again - stale;
    }
  }

  // `repeats` of the offered datagrams ran. With `lost` = offered - repeats
  // of them lost, at least (n - lost) of a cause's n ran, whichever were
  // lost; that much is certain, the rest is unexplained.
  static std::vector<Cause> certain_causes(const CauseCounts& offered, size_t repeats) {
    size_t lost = offered.total() > repeats ? offered.total() - repeats : 0;
    std::vector<Cause> out;
    for (const CauseRow& row : cause_rows())
      for (uint64_t i = lost; i < offered[row.cause] && out.size() < repeats; ++i) out.push_back(row.cause);
    out.resize(repeats, Cause::kUnexplained);
    return out;
  }

  std::set<Key> sent_;             // seen sent at least once
  std::map<Key, CauseCounts> resends_;  // datagrams offered beyond the first transmission, by cause
};

// One (client, seq)'s executions beyond its first, by the journal and the
// client record; a repeat of a request it already ran is left to the wire.
class CallCauses {
 public:
  explicit CallCauses(uint32_t app_attempts) : app_left_(app_attempts - 1) {}

  // `first`: the call's first execution; it needs no cause but names a request.
  void first(const Execution& e) {
    if (e.known & journal::kKnowsRequestId) ++runs_[e.request_id];
  }

  // A cause, or nullopt for a repeat of a request this call already ran.
  std::optional<Cause> next(const Execution& e) {
    if ((e.known & journal::kKnowsAttempt) && e.attempt > 0) return Cause::kLibraryRetry;
    if (!(e.known & journal::kKnowsRequestId)) return take_app_attempt();
    if (++runs_[e.request_id] == 1) return take_app_attempt();  // a request this call had not sent before
    return std::nullopt;
  }

 private:
  Cause take_app_attempt() {
    if (app_left_ == 0) return Cause::kUnexplained;
    --app_left_;
    return Cause::kAppRetry;
  }

  uint32_t app_left_;
  std::map<uint32_t, size_t> runs_;  // executions so far per request identity
};

Key repeat_key(const Execution& e) { return {(e.known & journal::kKnowsPeer) ? e.peer_port : uint16_t{0}, e.request_id}; }

}  // namespace

Attribution attribute(const AttributionInput& in) {
  std::optional<WireIndex> wire;
  // A capture that lost packets cannot tell a copy from a resend: leave those unexplained.
  if (in.wire && in.wire->drops == 0) wire.emplace(*in.wire, in.drains_stale_replies);
  std::map<std::pair<uint32_t, uint32_t>, CallCauses> calls;
  std::map<Key, std::vector<size_t>> repeats;  // (port, XID) -> its slots in a.causes
  Attribution a;
  for (const Execution& e : in.executions) {
    std::pair<uint32_t, uint32_t> key{e.client_id, e.seq};
    auto it = calls.find(key);
    if (it == calls.end()) {
      auto attempts = in.app_attempts.find(key);
      uint32_t n = attempts == in.app_attempts.end() ? 1 : std::max<uint32_t>(1, attempts->second);
      calls.emplace(key, CallCauses(n)).first->second.first(e);
      continue;
    }
    std::optional<Cause> c = it->second.next(e);
    if (!c) repeats[repeat_key(e)].push_back(a.causes.size());
    a.causes.push_back(c.value_or(Cause::kUnexplained));
  }
  if (wire)
    for (const auto& [key, slots] : repeats) {
      std::vector<Cause> causes = wire->causes_of(key, slots.size());
      for (size_t i = 0; i < slots.size(); ++i) a.causes[slots[i]] = causes[i];
    }
  for (Cause c : a.causes) ++a.counts[c];
  // Counted apart from the tally: every execution but each call's first.
  a.extra_executions = in.executions.size() - calls.size();
  if (a.counts.total() != a.extra_executions)
    throw std::logic_error("attribution: the causes do not add up to the extra executions");
  return a;
}

}  // namespace rpclab::harness
