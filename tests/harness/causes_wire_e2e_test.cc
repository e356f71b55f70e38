// The causes against the wire they were read from, on real runs: the
// quick and remedies presets' sunrpc-udp cells, one short trial each, with
// the capture. Each trial is attributed again from its folder (journal.bin,
// wire.bin, the cell's client), and every execution the kernel's stamps
// matched to a transmission is checked against what clnt_dg can do:
//   a retransmit-timeout left at least 0.95 x the interval after its XID's
//     transmission before it (poll's timer never fires early);
//   a stale-reply-resend left after a reply to another call reached the
//     socket, one that no earlier stale-reply resend used (each resend
//     answers one reply read).
// And, from the wire alone, no trial's record labels more timer resends
// than the executions whose transmission left 0.95 x the interval or more
// after its XID's one before; and a program written from the docs alone
// (tests/harness/independent/causes_reader.py) gives every trial's causes
// as rpclab does. Root only (namespaces, nftables, capture).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include "common/atomic_file.h"
#include "harness/causes/cell_causes.h"
#include "harness/causes/wire_record.h"
#include "capture_probe.h"
#include "harness_e2e_util.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using nlohmann::json;
using harness::Cause;
using harness::WireKind;
using harness::WirePacket;
using namespace std::chrono_literals;

bool slow(int64_t gap_ns, int retransmit_ms) { return gap_ns * 20 >= int64_t{retransmit_ms} * 1'000'000 * 19; }

// A socket's datagrams in stamp order (the file's order is not theirs).
std::map<uint16_t, std::vector<WirePacket>> sockets_of(const harness::Wire& wire) {
  std::map<uint16_t, std::vector<WirePacket>> out;
  for (const WirePacket& p : wire.packets) out[p.client_port].push_back(p);
  for (auto& [port, packets] : out)
    std::stable_sort(packets.begin(), packets.end(),
                     [](const WirePacket& a, const WirePacket& b) { return a.realtime_ns < b.realtime_ns; });
  return out;
}

// Executions whose request left 0.95 x the interval or more after its
// XID's transmission before it, by the stamps alone (each execution's
// transmission: the last of its port and XID to leave before the server's
// kernel stamped it), plus those no transmission within 1 ms explains: the
// most timer resends the trial can hold.
uint64_t slow_or_unmatched_runs(const harness::Wire& wire, const std::vector<harness::Execution>& runs,
                                int retransmit_ms) {
  std::map<std::pair<uint16_t, uint32_t>, std::vector<std::pair<int64_t, bool>>> sends;  // -> (stamp, slow)
  for (const auto& [port, packets] : sockets_of(wire)) {
    std::map<uint32_t, int64_t> previous;
    for (const WirePacket& p : packets) {
      if (p.kind == WireKind::kReply) continue;
      auto it = previous.find(p.xid);
      bool is_slow = it != previous.end() && slow(p.realtime_ns - it->second, retransmit_ms);
      sends[{port, p.xid}].push_back({p.realtime_ns, is_slow});
      if (p.kind == WireKind::kSent) previous[p.xid] = p.realtime_ns;
    }
  }
  uint64_t n = 0;
  std::set<std::pair<uint32_t, uint32_t>> seen_calls;
  for (const harness::Execution& e : runs) {
    if (seen_calls.insert({e.client_id, e.seq}).second) continue;  // a call's first run
    const auto& mine = sends[{e.peer_port, e.request_id}];
    const std::pair<int64_t, bool>* from = nullptr;
    for (const auto& s : mine)
      if (s.first <= e.arrival_ns) from = &s;
    n += !from || e.arrival_ns - from->first > 1'000'000 || from->second;
  }
  return n;
}

struct Checked {
  uint64_t timer = 0, stale = 0;  // labels checked against their transmission
  uint64_t trials = 0;
};

// One trial: its attribution again, each matched label against the wire.
void check_trial(const harness::CellConfig& cell, const json& trial, Checked& checked) {
  std::string dir = trial["trial_dir"].get<std::string>();
  std::string capture = trial["causes"].value("capture", "");
  if (capture != "bpf" && capture.rfind("nflog", 0) != 0) return;
  harness::AttributionInput in;
  harness::set_client_model(cell, in);
  ASSERT_GT(in.retransmit_ms, 0) << dir;
  uint32_t budget = harness::give_up_budget(in.timeout_ms, in.retransmit_ms);
  in.wire = harness::parse_wire(read_whole_file(dir + "/wire.bin"));
  if (in.wire->drops != 0) return;  // nothing is decided from a wire that lost packets
  in.executions = harness::journal_executions(dir + "/journal.bin");
  harness::Attribution a = harness::attribute(in);
  ++checked.trials;

  // Timer resends: never sooner than the interval allows.
  std::multiset<std::pair<uint16_t, int64_t>> stale_sent;  // (port, stamp) of each stale-reply transmission
  for (size_t i = 0; i < a.causes.size(); ++i) {
    const harness::Origin& o = a.origins[i];
    if (o.left_ns == 0) continue;
    if (a.causes[i] == Cause::kRetransmitTimeout) {
      ++checked.timer;
      EXPECT_TRUE(slow(o.left_ns - o.previous_ns, in.retransmit_ms))
          << dir << ": a timer resend from port " << o.client_port << " left " << (o.left_ns - o.previous_ns)
          << " ns after the one before, interval " << in.retransmit_ms << " ms";
    } else if (a.causes[i] == Cause::kStaleReplyResend) {
      stale_sent.insert({o.client_port, o.left_ns});
    }
  }
  // Stale-reply resends: each after a reply to another call that no
  // earlier one used. A reply is spare unless it is the first reply to the
  // call in progress while that call has neither sent `budget` times nor
  // passed its timeout since its first send (it ends that call, which has
  // not given up). On a loaded machine the client's timer wakes late, so a
  // call can give up by the clock having sent fewer than `budget` times: a
  // reply after the deadline may be read or left, and is counted spare
  // (the check is then on the most replies the wire allows to be spare).
  const int64_t timeout_ns = static_cast<int64_t>(in.timeout_ms) * 1'000'000;
  for (const auto& [port, packets] : sockets_of(*in.wire)) {
    uint32_t call = 0;
    bool in_call = false, own_read = false;
    uint32_t sends = 0;
    int64_t call_began = 0;
    std::set<uint32_t> calls;
    uint64_t spare = 0, used = 0;
    for (const WirePacket& p : packets) {
      if (p.kind == WireKind::kReply) {
        bool ends_call = in_call && p.xid == call && !own_read && sends < budget &&
                         (timeout_ns <= 0 || p.realtime_ns - call_began < timeout_ns);
        own_read |= ends_call;
        spare += !ends_call;
        continue;
      }
      if (p.kind == WireKind::kSent && calls.insert(p.xid).second) {
        call = p.xid, in_call = true, own_read = false, sends = 0, call_began = p.realtime_ns;
      }
      sends += p.kind == WireKind::kSent && p.xid == call;
      auto it = stale_sent.find({port, p.realtime_ns});
      if (it == stale_sent.end()) continue;
      stale_sent.erase(it);
      ++used;
      ++checked.stale;
      EXPECT_LE(used, spare) << dir << ": port " << port << "'s stale-reply resend of XID " << p.xid << " at "
                             << p.realtime_ns << " has no unused reply to another call before it";
    }
  }
  EXPECT_TRUE(stale_sent.empty()) << dir << ": stale-reply resends the wire does not list";

  // The record's count, against the wire alone.
  uint64_t most = slow_or_unmatched_runs(*in.wire, in.executions, in.retransmit_ms);
  EXPECT_LE(trial["causes"]["retransmit_timeout"].get<uint64_t>(), most)
      << dir << ": more timer resends labelled than executions that left an interval after the send before";
}

// Every sunrpc-udp cell of a preset, one short trial each, checked.
Checked check_preset(const std::string& preset) {
  TempDir dir;
  ProcessResult r = run_program({bin("rpclab"), "dependability", "--out", dir.file("run"), "--results-root",
                                 dir.file("results"), "--preset", preset, "--transports", "sunrpc-udp", "--trials",
                                 "1", "--calls", "200", "--fault-calls", "200", "--clients", "2"},
                                600s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Checked checked;
  for (const json& cell : read_jsonl(dir.file("run/results.jsonl"))) {
    EXPECT_EQ(cell.value("status", ""), "ok") << cell.dump();
    harness::CellConfig config = harness::CellConfig::from_json(cell["cell"]);
    for (const json& trial : cell["per_trial"]) check_trial(config, trial, checked);
  }
  // The page, reimplemented from it alone (tests/harness/independent/),
  // gives the same causes for every trial with a capture.
  ProcessResult reader = run_program(
      {"python3", RPCLAB_SOURCE_DIR "/tests/harness/independent/causes_reader.py", dir.file("run")}, 300s);
  EXPECT_EQ(reader.exit_code, 0) << "docs/dependability.md's causes rules, read by a program written from the page "
                                    "alone, give other counts than rpclab (fix the page or the code):\n"
                                 << reader.out << reader.err;
  std::printf("%s: the page's reader: %s", preset.c_str(),
              reader.out.substr(reader.out.rfind('\n', reader.out.size() - 2) + 1).c_str());
  std::printf("%s: %lu trials with a capture, %lu timer and %lu stale-reply labels checked against the wire\n",
              preset.c_str(), static_cast<unsigned long>(checked.trials), static_cast<unsigned long>(checked.timer),
              static_cast<unsigned long>(checked.stale));
  return checked;
}

TEST(CausesWireE2E, QuickPresetsLabelsMatchTheWire) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, nftables and the capture";
  if (auto why = why_no_capture_here("on"); !why.empty()) GTEST_SKIP() << why;
  Checked c = check_preset("quick");
  ASSERT_GT(c.trials, 0u) << "this kernel can run the capture, and no trial had one without drops";
  EXPECT_GT(c.timer + c.stale, 0u) << "no resend was checked: the preset's storms made none";
}

TEST(CausesWireE2E, RemediesPresetsLabelsMatchTheWire) {
  if (!is_root()) GTEST_SKIP() << "needs root: network namespaces, nftables and the capture";
  if (auto why = why_no_capture_here("on"); !why.empty()) GTEST_SKIP() << why;
  Checked c = check_preset("remedies");
  ASSERT_GT(c.trials, 0u) << "this kernel can run the capture, and no trial had one without drops";
  EXPECT_GT(c.timer, 0u) << "the loss cells made no timer resend to check";
  EXPECT_GT(c.stale, 0u) << "the dup cells made no stale-reply resend to check";
}

}  // namespace
}  // namespace rpclab::test
