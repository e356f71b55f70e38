#include "harness/causes/attribution.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "server/journal_format.h"

namespace rpclab::harness {

namespace {

using Key = std::pair<uint16_t, uint32_t>;  // (client port, XID); port 0: any

// The longest a request can take from the client's egress hook (the
// capture's stamp) to the server's kernel stamp and still be told apart by
// time. Both are taken in the one sendto that carries it, so a few
// microseconds pass; a delayed link (netem) takes longer, and its repeats
// are then decided by counts alone.
constexpr int64_t kMaxStampLagNs = 1'000'000;

// One transmission of an XID by the client, with the copies the
// duplication rule made of it.
struct Transmission {
  int64_t sent_ns = 0;  // the capture's kernel stamp; 0: unknown
  bool first = false;   // the call's first transmission
  Cause cause = Cause::kUnexplained;  // why it was sent again (not first)
  uint32_t copies = 0;
};

// One execution of an XID, in journal order: its kernel arrival stamp (0:
// unknown) and its slot among the extra executions (none: a call's first).
struct KeyedRun {
  int64_t arrival_ns = 0;
  std::optional<size_t> slot;
};

// The wire, indexed: for each (port, xid), the client's transmissions in
// the order they left, each with why it was sent. Port 0 stands for "any
// port", used when the journal could not tell the sender's port.
class WireIndex {
 public:
  WireIndex(const Wire& wire, bool drains) {
    std::map<uint16_t, std::vector<size_t>> by_port;
    for (size_t i = 0; i < wire.packets.size(); ++i)
      for (uint16_t port : {wire.packets[i].client_port, uint16_t{0}}) by_port[port].push_back(i);
    for (const auto& [port, seen] : by_port) read_socket(wire.packets, port, seen, drains);
  }

  // The causes of the runs of one XID beyond the calls' first, by slot.
  // Each run is matched to the transmission it came from by the kernel's
  // stamps where both ends have them; otherwise by counts (certain_causes).
  std::map<size_t, Cause> causes_of(const Key& key, const std::vector<KeyedRun>& runs) const {
    std::map<size_t, Cause> out;
    auto it = sends_.find(key);
    if (it == sends_.end()) {
      for (const KeyedRun& r : runs)
        if (r.slot) out[*r.slot] = Cause::kUnexplained;
      return out;
    }
    if (timed_causes(it->second, runs, out)) return out;
    out.clear();
    std::vector<size_t> slots;
    for (const KeyedRun& r : runs)
      if (r.slot) slots.push_back(*r.slot);
    std::vector<Cause> causes = certain_causes(it->second, slots.size());
    for (size_t i = 0; i < slots.size(); ++i) out[slots[i]] = causes[i];
    return out;
  }

 private:
  // The client's socket, replayed: it reads the replies in the order they
  // arrived, one call at a time. libtirpc's clnt_dg_call sends the call
  // again at once for each reply to another XID it reads (XID mismatch ->
  // send_again: a stale-reply resend) and ends the call at its own reply;
  // a transmission with no unread stale reply before it was its
  // retransmit timer's. With --drain, the client first throws away what
  // arrived before the call.
  void read_socket(const std::vector<WirePacket>& packets, uint16_t port, const std::vector<size_t>& seen,
                   bool drains) {
    std::vector<size_t> replies;
    std::vector<uint32_t> calls;  // XIDs in the order of their first transmission
    std::map<uint32_t, std::vector<size_t>> requests;  // sent and copies, in order
    for (size_t i : seen) {
      const WirePacket& p = packets[i];
      if (p.kind == WireKind::kReply) {
        replies.push_back(i);
        continue;
      }
      std::vector<size_t>& mine = requests[p.xid];
      if (mine.empty()) calls.push_back(p.xid);
      mine.push_back(i);
    }
    size_t next = 0;  // the first reply the client has not read
    for (size_t c = 0; c < calls.size(); ++c) {
      uint32_t xid = calls[c];
      const std::vector<size_t>& mine = requests[xid];
      if (drains)
        while (next < replies.size() && replies[next] < mine.front()) ++next;
      std::vector<Transmission>& out = sends_[{port, xid}];
      for (size_t i : mine) {
        if (packets[i].kind == WireKind::kCopy && !out.empty()) {
          // A transmission left when its first datagram did: the eBPF
          // capture stamps the copy before its original, and the server
          // may stamp the copy's run before the original's stamp.
          Transmission& t = out.back();
          if (t.sent_ns != 0 && packets[i].realtime_ns != 0) t.sent_ns = std::min(t.sent_ns, packets[i].realtime_ns);
          ++t.copies;
          continue;
        }
        Transmission t{packets[i].realtime_ns};
        t.first = out.empty();
        if (!t.first && next < replies.size() && replies[next] < i && packets[replies[next]].xid != xid) {
          t.cause = Cause::kStaleReplyResend;
          ++next;
        } else if (!t.first) {
          t.cause = Cause::kRetransmitTimeout;
        }
        out.push_back(t);
      }
      // The call ended at its own reply, read before the next call began;
      // a call that gave up leaves its unread replies to the next one.
      size_t ends = c + 1 < calls.size() ? requests[calls[c + 1]].front() : packets.size();
      size_t own = next;
      while (own < replies.size() && replies[own] < ends && packets[replies[own]].xid != xid) ++own;
      if (own < replies.size() && replies[own] < ends) next = own + 1;
    }
  }

  // Each run's transmission: the last one to leave before the server's
  // kernel stamped the run's datagram. A first run of a transmission takes
  // its cause, a second one its copy's; false when the stamps cannot say.
  static bool timed_causes(const std::vector<Transmission>& sends, const std::vector<KeyedRun>& runs,
                           std::map<size_t, Cause>& out) {
    std::vector<uint32_t> ran(sends.size(), 0);
    for (const KeyedRun& r : runs) {
      if (r.arrival_ns == 0) return false;
      size_t t = sends.size();
      for (size_t k = 0; k < sends.size(); ++k)
        if (sends[k].sent_ns != 0 && sends[k].sent_ns <= r.arrival_ns) t = k;
      if (t == sends.size() || r.arrival_ns - sends[t].sent_ns > kMaxStampLagNs) return false;
      uint32_t before = ran[t]++;
      if (!r.slot) continue;
      if (before == 0)
        out[*r.slot] = sends[t].first ? Cause::kUnexplained : sends[t].cause;
      else
        out[*r.slot] = before <= sends[t].copies ? Cause::kNetworkCopy : Cause::kUnexplained;
    }
    return true;
  }

  // `repeats` of the datagrams offered beyond the first ran. With `lost` =
  // offered - repeats of them lost, at least (n - lost) of a cause's n
  // ran, whichever were lost; that much is certain, the rest unexplained.
  static std::vector<Cause> certain_causes(const std::vector<Transmission>& sends, size_t repeats) {
    CauseCounts offered;
    for (const Transmission& t : sends) {
      offered[Cause::kNetworkCopy] += t.copies;
      if (!t.first) ++offered[t.cause];
    }
    size_t lost = offered.total() > repeats ? offered.total() - repeats : 0;
    std::vector<Cause> out;
    for (const CauseRow& row : cause_rows())
      for (uint64_t i = lost; i < offered[row.cause] && out.size() < repeats; ++i) out.push_back(row.cause);
    out.resize(repeats, Cause::kUnexplained);
    return out;
  }

  std::map<Key, std::vector<Transmission>> sends_;
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

// Each client's runs of two or more consecutive seqs that ran more than
// once, from the first extra execution of each such call. A call that ran
// twice alone, its neighbours once, set off nothing.
Cascades cascades_of(const std::map<std::pair<uint32_t, uint32_t>, Cause>& first_extra) {
  Cascades out;
  uint64_t length = 0;
  Cause start = Cause::kUnexplained;
  auto close = [&] {
    if (length < 2) return;
    ++out.count;
    ++out.started_by[start];
    out.longest = std::max(out.longest, length);
  };
  std::optional<std::pair<uint32_t, uint32_t>> last;
  for (const auto& [call, cause] : first_extra) {  // ordered by client, then seq
    if (!(last && last->first == call.first && last->second + 1 == call.second)) {
      close();
      start = cause;
      length = 0;
    }
    ++length;
    last = call;
  }
  close();
  return out;
}

Key repeat_key(const Execution& e) { return {(e.known & journal::kKnowsPeer) ? e.peer_port : uint16_t{0}, e.request_id}; }

}  // namespace

Attribution attribute(const AttributionInput& in) {
  std::optional<WireIndex> wire;
  // A capture that lost packets cannot tell a copy from a resend: leave those unexplained.
  if (in.wire && in.wire->drops == 0) wire.emplace(*in.wire, in.drains_stale_replies);
  std::map<std::pair<uint32_t, uint32_t>, CallCauses> calls;
  std::map<Key, std::vector<KeyedRun>> runs;  // (port, XID) -> its runs; a slot for those the wire decides
  std::set<Key> repeated;
  std::vector<std::pair<uint32_t, uint32_t>> extra_calls;  // the call of each slot of a.causes
  Attribution a;
  for (const Execution& e : in.executions) {
    std::pair<uint32_t, uint32_t> key{e.client_id, e.seq};
    std::vector<KeyedRun>* mine = (e.known & journal::kKnowsRequestId) ? &runs[repeat_key(e)] : nullptr;
    auto it = calls.find(key);
    if (it == calls.end()) {
      auto attempts = in.app_attempts.find(key);
      uint32_t n = attempts == in.app_attempts.end() ? 1 : std::max<uint32_t>(1, attempts->second);
      calls.emplace(key, CallCauses(n)).first->second.first(e);
      if (mine) mine->push_back({e.arrival_ns, std::nullopt});
      continue;
    }
    std::optional<Cause> c = it->second.next(e);
    if (mine) mine->push_back({e.arrival_ns, c ? std::nullopt : std::optional<size_t>(a.causes.size())});
    if (!c) repeated.insert(repeat_key(e));
    a.causes.push_back(c.value_or(Cause::kUnexplained));
    extra_calls.push_back(key);
  }
  if (wire)
    for (const Key& key : repeated)
      for (const auto& [slot, cause] : wire->causes_of(key, runs[key])) a.causes[slot] = cause;
  for (Cause c : a.causes) ++a.counts[c];
  std::map<std::pair<uint32_t, uint32_t>, Cause> first_extra;
  for (size_t i = 0; i < a.causes.size(); ++i) first_extra.emplace(extra_calls[i], a.causes[i]);
  a.cascades = cascades_of(first_extra);
  // Counted apart from the tally: every execution but each call's first.
  a.extra_executions = in.executions.size() - calls.size();
  if (a.counts.total() != a.extra_executions)
    throw std::logic_error("attribution: the causes do not add up to the extra executions");
  return a;
}

}  // namespace rpclab::harness
