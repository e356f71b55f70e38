#include "harness/nfs/nfs_speed.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "harness/kit/stats.h"

namespace rpclab::harness::nfs {

using rpclab::nfs::NfsCall;
using rpclab::nfs::NfsCallRecord;
using rpclab::nfs::NfsOp;

namespace {

// A tail percentile from fewer calls than it needs is the maximum: p99
// only where at least one call lies beyond it (as the speed tables do).
constexpr size_t kCallsForP99 = 100;

}  // namespace

std::vector<NfsOp> speed_ops(const std::string& ops) {
  std::vector<NfsOp> list = rpclab::nfs::parse_ops(ops);
  std::vector<NfsOp> once;
  for (NfsOp op : list)
    if (std::find(once.begin(), once.end(), op) == once.end()) once.push_back(op);
  return once;
}

bool needs_noac(NfsOp op) { return op == NfsOp::kGetattr; }

NfsOpSpeed op_speed(NfsOp op, const std::vector<NfsCallRecord>& clients, uint64_t warmup_calls) {
  NfsOpSpeed s;
  s.op = rpclab::nfs::op_name(op);
  s.warmup_calls = warmup_calls;
  std::vector<double> ok_us;
  for (const NfsCallRecord& record : clients) {
    int64_t first = std::numeric_limits<int64_t>::max(), last = 0;
    uint64_t calls = 0;
    for (const NfsCall& c : record.calls) {
      if (c.op != op) continue;
      ++calls;
      first = std::min(first, c.start_ns);
      last = std::max(last, c.start_ns + c.latency_ns);
      if (c.nfs == "NFS3_OK")
        ok_us.push_back(static_cast<double>(c.latency_ns) / 1000.0);
      else
        ++s.errors;
    }
    if (calls == 0) continue;
    s.calls += calls;
    double loop_s = static_cast<double>(last - first) / 1e9;
    s.loop_s = std::max(s.loop_s, loop_s);
    if (loop_s > 0) s.ops_per_s += static_cast<double>(calls) / loop_s;
  }
  if (ok_us.empty()) return s;
  std::sort(ok_us.begin(), ok_us.end());
  s.p50_us = percentile_sorted(ok_us, 50);
  if (ok_us.size() >= kCallsForP99) s.p99_us = percentile_sorted(ok_us, 99);
  return s;
}

void judge_reached(NfsOpSpeed& s, const std::optional<NfsServer::OpCount>& counted, bool every_call_on_wire) {
  uint64_t made = s.warmup_calls + s.calls;
  if (counted) {
    s.server_count = counted->count;
    s.server_counter = counted->counter;
    s.reached_server = counted->count >= made;
    s.evidence = fmt::format("the server's {} counted {} for the {} calls made ({} warm-up){}", counted->counter,
                             counted->count, made, s.warmup_calls,
                             s.reached_server ? "" : ": some were answered by the client itself");
    return;
  }
  s.reached_server = every_call_on_wire;
  s.evidence = every_call_on_wire
                   ? "the client keeps no cache: each recorded status is the server's reply to that call"
                   : "the server counts no calls here and the client may answer from its cache";
}

NfsOverTrials over_trials_of(const std::vector<double>& per_trial) {
  Summary s = summarize(per_trial);
  return NfsOverTrials{per_trial, s.mean, s.ci95_low, s.ci95_high};
}

std::vector<NfsOpSpeedCell> speed_over_trials(const std::vector<std::vector<NfsOpSpeed>>& trials) {
  std::vector<NfsOpSpeedCell> cells;
  if (trials.empty()) return cells;
  for (const NfsOpSpeed& first : trials.front()) {
    NfsOpSpeedCell c;
    c.op = first.op;
    c.mount_options = first.mount_options;
    std::vector<double> p50, p99, rate;
    for (size_t t = 0; t < trials.size(); ++t) {
      auto it = std::find_if(trials[t].begin(), trials[t].end(), [&](const NfsOpSpeed& s) { return s.op == c.op; });
      if (it == trials[t].end()) continue;
      ++c.trials;
      c.calls += it->calls;
      c.errors += it->errors;
      c.calls_made += it->warmup_calls + it->calls;
      if (it->server_count) {
        c.server_count = c.server_count.value_or(0) + *it->server_count;
        c.server_counter = it->server_counter;
      }
      if (!it->reached_server && !c.withheld)
        c.withheld = fmt::format("trial {}: {}", t + 1, it->evidence);
      if (it->p50_us) p50.push_back(*it->p50_us);
      if (it->p99_us) p99.push_back(*it->p99_us);
      rate.push_back(it->ops_per_s);
    }
    if (!c.withheld) {
      if (!p50.empty() && p50.size() == c.trials) c.p50_us = over_trials_of(p50);
      if (!p99.empty() && p99.size() == c.trials) c.p99_us = over_trials_of(p99);
      c.ops_per_s = over_trials_of(rate);
    }
    cells.push_back(c);
  }
  return cells;
}

}  // namespace rpclab::harness::nfs
