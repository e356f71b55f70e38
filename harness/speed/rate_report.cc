#include "harness/speed/rate_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "harness/kit/text_table.h"
#include "harness/speed/speed_rows.h"

namespace rpclab::harness {
namespace {

bool measured(const CellRecord& r) { return r.is("speed") && r.ok() && r.speed.latency.p50_us.has_value(); }

// A transport's curve: its row, link, clients, operation and size; the
// rate left out (the x of the curve) and the closed-loop cell beside it.
using CurveKey = std::tuple<long, std::string, std::string, int, std::string, size_t>;

CurveKey curve_key(const CellRecord& r) {
  const CellConfig& c = r.cell.config;
  return {table_rank(r.transport), variant(r), r.topology + " " + r.connect, r.clients, c.op, c.size};
}

struct Curve {
  std::vector<const CellRecord*> open;  // by offered rate, ascending
  const CellRecord* closed = nullptr;
};

std::map<CurveKey, Curve> curves(const std::vector<CellRecord>& records) {
  std::map<CurveKey, Curve> out;
  for (const CellRecord& r : records) {
    if (!measured(r)) continue;
    Curve& c = out[curve_key(r)];
    if (r.cell.config.rate_per_s && r.speed.latency.offered_per_s)
      c.open.push_back(&r);
    else
      c.closed = &r;
  }
  for (auto it = out.begin(); it != out.end();) {
    std::sort(it->second.open.begin(), it->second.open.end(), [](const CellRecord* a, const CellRecord* b) {
      return *a->speed.latency.offered_per_s < *b->speed.latency.offered_per_s;
    });
    it = it->second.open.empty() ? out.erase(it) : std::next(it);
  }
  return out;
}

RatePoint point(const CellRecord& r) {
  const LatencyFigures& l = r.speed.latency;
  return {l.offered_per_s.value_or(0.0), l.calls_per_s.value_or(0.0), l.p99_us.value_or(0.0)};
}

std::string rate_words(double rate) { return grouped(static_cast<uint64_t>(std::llround(rate))); }

// A tail percentile shown only where a call lies beyond it (as the
// percentile tables do): p99 needs 100 calls, p99.9 1,000.
std::string tail(const MaybeNull<double>& v, const std::optional<uint64_t>& calls, double q, bool* hidden) {
  if (!v.has_value()) return "-";
  if (calls && static_cast<double>(*calls) * (1 - q) < 1 - 1e-9) {
    *hidden = true;
    return "-";
  }
  return fixed(*v, 1);
}

}  // namespace

std::optional<size_t> knee_index(const std::vector<RatePoint>& points) {
  if (points.empty()) return std::nullopt;
  size_t lowest = 0;
  for (size_t i = 1; i < points.size(); ++i)
    if (points[i].offered_per_s < points[lowest].offered_per_s) lowest = i;
  double p99_limit = kKneeP99Factor * points[lowest].p99_us;
  std::optional<size_t> knee;
  for (size_t i = 0; i < points.size(); ++i) {
    const RatePoint& p = points[i];
    if (p.achieved_per_s < kKneeAchievedShare * p.offered_per_s || p.p99_us > p99_limit) continue;
    if (!knee || p.offered_per_s > points[*knee].offered_per_s) knee = i;
  }
  return knee;
}

std::string rate_sweep_table(const std::vector<CellRecord>& records, bool markdown) {
  std::map<CurveKey, Curve> all = curves(records);
  if (all.empty()) return "";
  TextTable t({"transport", "link", "clients", "size", "offered/s", "achieved/s", "achieved %", "p50 us", "p99 us",
               "p99.9 us", "knee"});
  std::string knees, low;
  bool hidden = false;
  for (const auto& [key, curve] : all) {
    if (!t.empty()) t.rule();
    const auto& [rank, name, link, clients, op, size] = key;
    std::string sz = op == "echo" ? size_label(size) : fmt::format("{} N={}", op, size);
    std::vector<RatePoint> points;
    for (const CellRecord* r : curve.open) points.push_back(point(*r));
    std::optional<size_t> knee = knee_index(points);
    for (size_t i = 0; i < curve.open.size(); ++i) {
      const LatencyFigures& l = curve.open[i]->speed.latency;
      const RatePoint& p = points[i];
      t.add({name, link, std::to_string(clients), sz, rate_words(p.offered_per_s), rate_words(p.achieved_per_s),
             fixed(100 * p.achieved_per_s / p.offered_per_s, 1), fixed(l.p50_us.value_or(0.0), 1),
             tail(l.p99_us, l.calls_measured, 0.99, &hidden), tail(l.p999_us, l.calls_measured, 0.999, &hidden),
             knee == i ? "<- knee" : ""});
    }
    if (curve.closed) {
      const LatencyFigures& l = curve.closed->speed.latency;
      t.add({name, link, std::to_string(clients), sz, "closed", rate_words(l.calls_per_s.value_or(0.0)), "",
             fixed(l.p50_us.value_or(0.0), 1), tail(l.p99_us, l.calls_measured, 0.99, &hidden),
             tail(l.p999_us, l.calls_measured, 0.999, &hidden), ""});
    }
    std::string where = all.size() > 1 && (link != "loopback persistent" || clients != 1) ? " (" + link + ")" : "";
    knees += fmt::format("  {}{}: {}\n", name, where,
                         knee ? rate_words(points[*knee].offered_per_s) + "/s"
                              : "none (below " + rate_words(points.front().offered_per_s) + "/s)");
    if (curve.closed) {
      const LatencyFigures &slow = curve.open.front()->speed.latency, &closed = curve.closed->speed.latency;
      low += fmt::format("  {}{}: p50 {:.1f} us at {}/s, {:.1f} us closed loop ({:.2f}x); closed loop made {} calls/s\n",
                         name, where, slow.p50_us.value_or(0.0), rate_words(points.front().offered_per_s),
                         closed.p50_us.value_or(0.0),
                         closed.p50_us.value_or(0.0) > 0 ? slow.p50_us.value_or(0.0) / *closed.p50_us : 0.0,
                         rate_words(closed.calls_per_s.value_or(0.0)));
    }
  }
  std::string out =
      "Open loop: each client's calls due on a fixed schedule (offered/s, all clients), latency from when each "
      "call was due\n(so a call held up by the one before counts its wait); achieved/s = calls / the trials' "
      "spans; 'closed' = the same\ntransport in a closed loop (latency from each call's start). The knee: the "
      "highest offered rate whose achieved rate\nis >= 95% of it and whose p99 is <= 10x the p99 at the lowest "
      "offered rate.\n\n" +
      (markdown ? t.render_markdown() : t.render());
  if (hidden)
    out += "(- in p99 or p99.9: the cell measured fewer than 100 or 1,000 calls, where that percentile is the "
           "maximum)\n";
  out += "\nKnee per transport:\n" + knees;
  if (!low.empty()) out += "\nAt the lowest rate against the closed loop (p50):\n" + low;
  return out;
}

std::vector<PlotSpec> rate_plot_specs(const std::vector<CellRecord>& records) {
  PlotSpec p{"rate-p99", "p99 latency from the due time vs offered rate (open loop)", "offered calls per second",
             "p99 microseconds from due", XAxis::kMeasure, true, true};
  for (const auto& [key, curve] : curves(records)) {
    const auto& [rank, name, link, clients, op, size] = key;
    Series s{name + (link == "loopback persistent" && clients == 1 ? "" : " " + link + fmt::format(" x{}", clients))};
    for (const CellRecord* r : curve.open) {
      RatePoint pt = point(*r);
      s.x.push_back(pt.offered_per_s);
      s.y.push_back(pt.p99_us);
      s.low.push_back(pt.p99_us);
      s.high.push_back(pt.p99_us);
    }
    p.series.push_back(std::move(s));
  }
  if (p.series.empty()) return {};
  return {p};
}

}  // namespace rpclab::harness
