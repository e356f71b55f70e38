#include "harness/dependability/paths_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "harness/kit/text_table.h"
#include "harness/paths/path_table.h"
#include "netem/config/fault_config.h"
#include "netem/config/fault_events.h"
#include "sunrpc/sunrpc_settings.h"
#include "transport/transport.h"

namespace rpclab::harness {
namespace {

constexpr size_t kWidth = 118;

// The path's place in the path table, so rows follow it (default first).
size_t path_order(const std::string& name) {
  const std::vector<PathRow>& rows = paths();
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].name == name) return i;
  return rows.size();
}

std::string event_words(const CellConfig& c) {
  if (c.faults.events.empty()) return "none";
  std::string kinds;
  for (const netem::FaultEvent& e : c.faults.events)
    kinds += (kinds.empty() ? "" : "+") + std::string(e.kind->name);
  return kinds;
}

// Event order: none first, then the event kinds' table's order.
size_t event_order(const CellConfig& c) {
  if (c.faults.events.empty()) return 0;
  const std::vector<netem::EventKind>& kinds = netem::event_kinds();
  for (size_t i = 0; i < kinds.size(); ++i)
    if (&kinds[i] == c.faults.events.front().kind) return i + 1;
  return kinds.size() + 1;
}

std::string remedy_words(const CellConfig& c) {
  std::string r;
  if (c.settings.on(sunrpc::kReplyCache)) r = "reply cache";
  if (c.at_most_once) r += (r.empty() ? "" : " + ") + std::string(c.at_most_once_shared ? "shared table" : "per replica");
  return r.empty() ? "none" : r;
}

int remedy_order(const CellConfig& c) { return c.at_most_once ? (c.at_most_once_shared ? 2 : 1) : 0; }

// "4 in 2 of 3": the count over the cell's trials and in how many trials.
std::string in_trials(uint64_t count, const OverTrials* o) {
  if (!o) return fmt::format("{}", count);
  if (count == 0) return fmt::format("0 in {}", o->trials);
  return fmt::format("{} in {} of {}", count, o->trials_with_events, o->trials);
}

std::string causes_words(const CellRecord& r) {
  if (!r.dependability.causes) return "-";
  std::string out;
  for (const CauseRow& row : cause_rows())
    if (uint64_t n = r.dependability.causes->counts[row.cause])
      out += fmt::format("{}{} {}", out.empty() ? "" : ", ", row.column, n);
  return out.empty() ? "-" : out;
}

std::string retried_words(const PathFigures& p) {
  if (!p.proxy_retried.has_value()) return "-";
  return fmt::format("{} of {}", *p.proxy_retried, p.proxy_requests.value_or(0));
}

}  // namespace

bool on_path(const CellRecord& record) { return !record.cell.config.path.empty(); }

std::string paths_table(const std::vector<CellRecord>& records, const ReportOptions& o) {
  std::vector<const CellRecord*> cells;
  for (const CellRecord& r : records)
    if (r.is("dependability") && on_path(r)) cells.push_back(&r);
  if (cells.empty()) return "";
  auto key = [](const CellRecord* r) {
    const CellConfig& c = r->cell.config;
    return std::make_tuple(c.transport, path_order(c.path), event_order(c), remedy_order(c), c.replicas);
  };
  std::stable_sort(cells.begin(), cells.end(), [&](auto* a, auto* b) { return key(a) < key(b); });
  std::string out;
  std::string transport;
  TextTable t({"transport", "path", "event", "remedy", "silent loss", "silent dup", "dup told failure", "indeterm.",
               "on 2+ replicas", "proxy retried", "why run twice"});
  std::vector<std::string> used_paths;
  for (const CellRecord* r : cells) {
    const CellConfig& c = r->cell.config;
    if (!transport.empty() && c.transport != transport) t.rule();
    transport = c.transport;
    if (std::find(used_paths.begin(), used_paths.end(), c.path) == used_paths.end()) used_paths.push_back(c.path);
    std::vector<std::string> row = {c.transport, fmt::format("{} ({})", c.path, c.replicas), event_words(c),
                                    remedy_words(c)};
    if (!r->ok()) {
      row.push_back("not measured (" + r->status + ")");
      row.resize(11, "");
      t.add(row);
      continue;
    }
    const DependabilityCell& d = r->dependability;
    ClassCounts k = d.classes.value_or(ClassCounts{});
    const OverTrials* dup = d.over_trials ? &d.over_trials->duplicate_calls : nullptr;
    uint64_t told_failure = k.duplicate_calls - std::min(k.duplicate_calls, k.silent_duplicates);
    row.push_back(fmt::format("{}", k.silent_loss));
    row.push_back(fmt::format("{}", k.silent_duplicates));
    row.push_back(fmt::format("{}", told_failure));
    row.push_back(fmt::format("{}", k.indeterminate));
    row.push_back(d.path ? in_trials(d.path->calls_on_several, dup) : "-");
    row.push_back(d.path ? retried_words(*d.path) : "-");
    row.push_back(causes_words(*r));
    t.add(row);
  }
  std::string legend;
  std::stable_sort(used_paths.begin(), used_paths.end(),
                   [](const std::string& a, const std::string& b) { return path_order(a) < path_order(b); });
  for (const std::string& name : used_paths)
    if (const PathRow* p = find_path(name))
      legend += fmt::format("  {}: {}{}\n", name, p->proxy ? std::string(p->proxy->title) + " " : "", p->setting.empty() ? std::string(p->what) : std::string(p->setting));
  std::string title =
      "The path people deploy: calls through a proxy or gRPC's own balancing to (N) replicas, an event striking "
      "replica 1; counts over all the cell's trials. silent loss = the client saw success and the call never ran; "
      "silent dup = ran on two replicas (or twice) and the client saw "
      "success; dup told failure = ran twice, the client was told it failed; indeterminate = ran once, reported as "
      "failed; on 2+ replicas = calls that ran on two or more replicas, in how many trials; proxy retried = "
      "requests the proxy's log shows sent upstream more than once (- where its log cannot say); why run twice = "
      "the causes (docs/dependability.md, \"How a cause is decided\"). remedy: the server's at-most-once table, each "
      "replica's own or one in Redis the replicas share; Sun RPC over UDP keeps its reply cache on every path.";
  out = (o.markdown ? title : wrapped(title, kWidth)) + "\n\n" + (o.markdown ? t.render_markdown() : t.render(kWidth, 2));
  return out + "\nEach path's settings, in its proxy's own words (its generated configuration is in each trial's "
               "folder):\n" + legend;
}

}  // namespace rpclab::harness
