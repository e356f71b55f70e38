#include "harness/causes/attribution.h"

#include <algorithm>
#include <deque>
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
  int64_t sent_ns = 0;  // the capture's kernel stamp (its copy's, if earlier); 0: unknown
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

struct Decided {
  Cause cause = Cause::kUnexplained;
  Origin origin;
};

// A datagram at one client socket: a reply that reached it, or a
// transmission with the copies the duplication rule made of it.
struct SocketEvent {
  bool reply = false;
  uint32_t xid = 0;
  int64_t ns = 0;       // the capture's stamp (a transmission's: its original's); 0: unknown
  int64_t earliest_ns = 0;  // a transmission's: its first datagram's stamp, copy or original
  uint32_t copies = 0;
};

// The call clnt_dg_call is in on one socket, as the replay follows it.
struct SocketCall {
  uint32_t xid = 0;
  uint32_t sends = 1;     // transmissions so far
  int64_t last_ns = 0;    // the latest one's stamp
  uint32_t owed = 0;      // fast resends whose reply the wire lists after them
};

// The wire, indexed: for each (port, xid), the client's transmissions in
// the order they left, each with why it was sent. A journal run with no
// port (port 0) is looked up by its XID alone, if one port sent it.
class WireIndex {
 public:
  WireIndex(const Wire& wire, const AttributionInput& in)
      : drains_(in.drains_stale_replies),
        interval_ns_(int64_t{in.retransmit_ms} * 1'000'000),
        budget_(give_up_budget(in.timeout_ms, in.retransmit_ms)) {
    std::map<uint16_t, std::vector<size_t>> by_port;
    for (size_t i = 0; i < wire.packets.size(); ++i) by_port[wire.packets[i].client_port].push_back(i);
    for (const auto& [port, seen] : by_port) read_socket(wire.packets, port, seen);
  }

  // The causes of the runs of one XID beyond the calls' first, by slot.
  // Each run is matched to the transmission it came from by the kernel's
  // stamps where both ends have them; otherwise by counts (certain_causes).
  std::map<size_t, Decided> causes_of(const Key& key, const std::vector<KeyedRun>& runs) const {
    std::map<size_t, Decided> out;
    std::optional<Key> found = find(key);
    if (!found) {
      for (const KeyedRun& r : runs)
        if (r.slot) out[*r.slot] = {};
      return out;
    }
    const std::vector<Transmission>& sends = sends_.at(*found);
    if (timed_causes(sends, found->first, runs, out)) return out;
    out.clear();
    std::vector<size_t> slots;
    for (const KeyedRun& r : runs)
      if (r.slot) slots.push_back(*r.slot);
    std::vector<Cause> causes = certain_causes(sends, slots.size());
    for (size_t i = 0; i < slots.size(); ++i) out[slots[i]] = {causes[i], {}};
    return out;
  }

 private:
  // (port, xid) as the wire has it: port 0 (the journal did not say) is
  // the one port that sent the XID; none, or two: nullopt.
  std::optional<Key> find(const Key& key) const {
    if (key.first != 0) return sends_.count(key) ? std::optional<Key>(key) : std::nullopt;
    std::optional<Key> only;
    for (const auto& [k, sends] : sends_) {
      if (k.second != key.second) continue;
      if (only) return std::nullopt;
      only = k;
    }
    return only;
  }

  // One socket's datagrams in the order they reached the capture: its
  // stamps' order where every datagram has one (the file's order is not
  // theirs for a few adjacent records), else the file's. Each copy joins
  // the transmission of its XID the file lists before it (the wire record
  // lists a copy after its original, though eBPF stamps it first).
  static std::vector<SocketEvent> socket_events(const std::vector<WirePacket>& packets,
                                                const std::vector<size_t>& seen) {
    std::vector<SocketEvent> events;
    std::map<uint32_t, size_t> latest;  // xid -> its latest transmission in events
    bool stamped = true;
    for (size_t i : seen) {
      const WirePacket& p = packets[i];
      stamped &= p.realtime_ns != 0;
      auto it = latest.find(p.xid);
      if (p.kind == WireKind::kCopy && it != latest.end()) {
        SocketEvent& t = events[it->second];
        if (t.earliest_ns != 0 && p.realtime_ns != 0) t.earliest_ns = std::min(t.earliest_ns, p.realtime_ns);
        ++t.copies;
        continue;
      }
      bool reply = p.kind == WireKind::kReply;
      if (!reply) latest[p.xid] = events.size();
      events.push_back({reply, p.xid, p.realtime_ns, p.realtime_ns, 0});
    }
    if (stamped)
      std::stable_sort(events.begin(), events.end(),
                       [](const SocketEvent& a, const SocketEvent& b) { return a.ns < b.ns; });
    return events;
  }

  // The client's socket, replayed as clnt_dg_call reads it, one call at a
  // time (docs/dependability.md, "How a cause is decided").
  void read_socket(const std::vector<WirePacket>& packets, uint16_t port, const std::vector<size_t>& seen) {
    std::vector<SocketEvent> events = socket_events(packets, seen);
    std::deque<const SocketEvent*> unread;  // replies in the socket, oldest first
    std::vector<const SocketEvent*> drained;  // what the drain before this call took, oldest first
    std::optional<SocketCall> call;
    for (const SocketEvent& e : events) {
      if (e.reply) {
        if (call && call->owed > 0 && e.xid != call->xid) {
          --call->owed;  // the reply a fast resend already read
          continue;
        }
        unread.push_back(&e);
        continue;
      }
      std::vector<Transmission>& out = sends_[{port, e.xid}];
      Transmission t{e.earliest_ns, out.empty(), Cause::kUnexplained, e.copies};
      if (t.first) {
        if (call) end_call(*call, unread);
        drained.clear();
        if (drains_) {
          drained.assign(unread.begin(), unread.end());
          unread.clear();
        }
        call = SocketCall{e.xid, 1, e.ns, 0};
      } else if (call && call->xid == e.xid) {
        t.cause = resend_cause(*call, e.ns, unread, drained);
        ++call->sends;
        call->last_ns = e.ns;
      }  // else: an XID sent again after a later call began, which clnt_dg never does: unexplained
      out.push_back(t);
    }
  }

  // Why the call sent again: it read a reply to another XID (the oldest
  // unread), or its timer ran out. A resend sooner than 0.95 x the
  // interval after the previous one was not the timer's: it read a reply
  // to another XID further back in the socket, or one the drain is
  // credited with that arrived after the drain, or one the wire lists after
  // the resend.
  Cause resend_cause(SocketCall& call, int64_t ns, std::deque<const SocketEvent*>& unread,
                     std::vector<const SocketEvent*>& drained) const {
    if (!unread.empty() && unread.front()->xid != call.xid) {
      unread.pop_front();
      return Cause::kStaleReplyResend;
    }
    bool fast = interval_ns_ > 0 && ns != 0 && call.last_ns != 0 && (ns - call.last_ns) * 20 < interval_ns_ * 19;
    if (!fast) return Cause::kRetransmitTimeout;
    auto other = std::find_if(unread.begin(), unread.end(), [&](const SocketEvent* r) { return r->xid != call.xid; });
    if (other != unread.end()) {
      unread.erase(other);
    } else if (!drained.empty()) {
      drained.pop_back();
    } else {
      ++call.owed;
    }
    return Cause::kStaleReplyResend;
  }

  // The call ends when the next one begins. One that sent `budget_` times
  // gave up at its last event: it read the oldest unread reply if that one
  // reached the socket before its timer ran out (its own, or a stale one
  // it did not answer), else nothing. Any other call read its own reply
  // (the oldest unread one of its XID) and leaves the rest to the next.
  void end_call(const SocketCall& call, std::deque<const SocketEvent*>& unread) const {
    if (budget_ > 0 && call.sends >= budget_) {
      if (unread.empty()) return;
      const SocketEvent* r = unread.front();
      bool in_time = interval_ns_ == 0 || r->ns == 0 || call.last_ns == 0 || r->ns < call.last_ns + interval_ns_;
      if (in_time) unread.pop_front();
      return;
    }
    auto own = std::find_if(unread.begin(), unread.end(), [&](const SocketEvent* r) { return r->xid == call.xid; });
    if (own != unread.end()) unread.erase(own);
  }

  // Each run's transmission: the last one to leave before the server's
  // kernel stamped the run's datagram. A first run of a transmission takes
  // its cause, a second one its copy's; false when the stamps cannot say.
  static bool timed_causes(const std::vector<Transmission>& sends, uint16_t port, const std::vector<KeyedRun>& runs,
                           std::map<size_t, Decided>& out) {
    std::vector<uint32_t> ran(sends.size(), 0);
    for (const KeyedRun& r : runs) {
      if (r.arrival_ns == 0) return false;
      size_t t = sends.size();
      for (size_t k = 0; k < sends.size(); ++k)
        if (sends[k].sent_ns != 0 && sends[k].sent_ns <= r.arrival_ns) t = k;
      if (t == sends.size() || r.arrival_ns - sends[t].sent_ns > kMaxStampLagNs) return false;
      uint32_t before = ran[t]++;
      if (!r.slot) continue;
      Origin origin{sends[t].sent_ns, t > 0 ? sends[t - 1].sent_ns : 0, port};
      if (before == 0)
        out[*r.slot] = {sends[t].first ? Cause::kUnexplained : sends[t].cause, origin};
      else
        out[*r.slot] = {before <= sends[t].copies ? Cause::kNetworkCopy : Cause::kUnexplained, origin};
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

  bool drains_;
  int64_t interval_ns_;
  uint32_t budget_;
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

uint32_t give_up_budget(int timeout_ms, int retransmit_ms) {
  if (timeout_ms <= 0 || retransmit_ms <= 0) return 0;
  return static_cast<uint32_t>((timeout_ms + retransmit_ms - 1) / retransmit_ms);
}

Attribution attribute(const AttributionInput& in) {
  std::optional<WireIndex> wire;
  // A capture that lost packets cannot tell a copy from a resend: leave those unexplained.
  if (in.wire && in.wire->drops == 0) wire.emplace(*in.wire, in);
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
    a.origins.emplace_back();
    extra_calls.push_back(key);
  }
  if (wire)
    for (const Key& key : repeated)
      for (const auto& [slot, decided] : wire->causes_of(key, runs[key])) {
        a.causes[slot] = decided.cause;
        a.origins[slot] = decided.origin;
      }
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
