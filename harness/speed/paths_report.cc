#include "harness/speed/paths_report.h"

#include <fmt/format.h>

#include <map>

#include "harness/kit/text_table.h"
#include "harness/speed/speed_rows.h"

namespace rpclab::harness {
namespace {

constexpr const char* kDirect = "direct";

bool measured(const CellRecord& r) {
  return r.is("speed") && r.ok() && !r.cell.config.path.empty() && r.speed.latency.p50_us && r.speed.latency.p99_us;
}

// A cell's settings without its path and at-most-once choice: what the
// cells a row compares share.
std::string base_key(const CellRecord& r) {
  CellConfig cell = r.cell.config;
  cell.path.clear();
  cell.replicas = 1;
  cell.at_most_once = cell.at_most_once_shared = false;
  return cell.id();
}

std::string path_label(const CellRecord& r) {
  const CellConfig& c = r.cell.config;
  return c.path == kDirect ? c.path : fmt::format("{} x{}", c.path, c.replicas);
}

std::string cpu(const CellRecord& r, double CpuPerCall::*field) {
  return r.speed.cpu_us_per_call ? fixed((*r.speed.cpu_us_per_call).*field, 1) : "-";
}

std::string proxy_cpu(const CellRecord& r) {
  return r.speed.cpu_us_per_call && r.speed.cpu_us_per_call->proxy ? fixed(*r.speed.cpu_us_per_call->proxy, 1) : "-";
}

// "+12.3 (1.25x)": what `r` adds to `base`.
std::string added(double value, double base) {
  return fmt::format("{:+.1f} ({:.2f}x)", value - base, base > 0 ? value / base : 0.0);
}

std::string price_table(const std::vector<const CellRecord*>& cells,
                        const std::map<std::string, const CellRecord*>& direct, bool markdown) {
  TextTable t({"transport", "path", "p50 us", "p99 us", "p50 added us", "p99 added us", "client CPU us",
               "replicas CPU us", "proxy CPU us"});
  for (const CellRecord* r : cells) {
    if (r->cell.config.at_most_once) continue;
    auto d = direct.find(base_key(*r));
    const LatencyFigures& l = r->speed.latency;
    bool is_direct = r->cell.config.path == kDirect;
    std::string add50 = "-", add99 = "-";
    if (!is_direct && d != direct.end()) {
      add50 = added(*l.p50_us, *d->second->speed.latency.p50_us);
      add99 = added(*l.p99_us, *d->second->speed.latency.p99_us);
    }
    t.add({variant(*r), path_label(*r), fixed(*l.p50_us, 1), fixed(*l.p99_us, 1), add50, add99,
           cpu(*r, &CpuPerCall::client), cpu(*r, &CpuPerCall::server), proxy_cpu(*r)});
  }
  if (t.empty()) return "";
  return "The price of the path (each path's trials taking turns with direct's; added = beside direct's, as a "
         "difference and a ratio;\nCPU per call: the client's, the replicas' summed per call they served, the "
         "proxy's with its workers, at-most-once off):\n\n" +
         (markdown ? t.render_markdown() : t.render());
}

std::string shared_table(const std::vector<const CellRecord*>& cells, bool markdown) {
  // (base, path, replicas) -> (each replica's table, the shared one)
  std::map<std::string, std::pair<const CellRecord*, const CellRecord*>> pairs;
  std::vector<std::string> order;
  for (const CellRecord* r : cells) {
    const CellConfig& c = r->cell.config;
    if (!c.at_most_once) continue;
    std::string key = fmt::format("{}|{}|{}", base_key(*r), c.path, c.replicas);
    if (!pairs.count(key)) order.push_back(key);
    (c.at_most_once_shared ? pairs[key].second : pairs[key].first) = r;
  }
  TextTable t({"transport", "path", "p50 us own", "p50 us shared", "p50 added us", "p99 us own", "p99 us shared",
               "replicas CPU us own", "shared"});
  for (const std::string& key : order) {
    auto [own, shared] = pairs[key];
    if (!own || !shared) continue;
    const LatencyFigures &a = own->speed.latency, &b = shared->speed.latency;
    t.add({variant(*own), path_label(*own), fixed(*a.p50_us, 1), fixed(*b.p50_us, 1), added(*b.p50_us, *a.p50_us),
           fixed(*a.p99_us, 1), fixed(*b.p99_us, 1), cpu(*own, &CpuPerCall::server),
           cpu(*shared, &CpuPerCall::server)});
  }
  if (t.empty()) return "";
  return "What the shared at-most-once table costs a call (one table in Redis every replica asks, beside each "
         "replica's own; trials taking turns):\n\n" +
         (markdown ? t.render_markdown() : t.render());
}

}  // namespace

std::string paths_cost_table(const std::vector<CellRecord>& records, bool markdown) {
  std::vector<const CellRecord*> cells;
  std::map<std::string, const CellRecord*> direct;  // base_key -> direct's cell, at-most-once off
  for (const CellRecord& r : records) {
    if (!measured(r)) continue;
    cells.push_back(&r);
    if (r.cell.config.path == kDirect && !r.cell.config.at_most_once) direct[base_key(r)] = &r;
  }
  std::string price = price_table(cells, direct, markdown), shared = shared_table(cells, markdown);
  return price + (!price.empty() && !shared.empty() ? "\n" : "") + shared;
}

}  // namespace rpclab::harness
