#include "harness/nfs/nfs_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "harness/kit/text_table.h"
#include "harness/nfs/nfs_speed.h"
#include "netem/config/fault_config.h"
#include "netem/spec/fault_fields.h"

namespace rpclab::harness {
namespace {

std::string percent(double per_million) { return fmt::format("{:.1f}%", per_million / 10000); }

// "2/300 (0.7%), 2 of 3 trials"; none: "0/300, 0 of 3 trials (<= 71%)",
// the upper end of how often a trial could have one (Clopper-Pearson over
// trials: the calls of a trial are not independent).
std::string over_trials_words(const OverTrials& o) {
  if (o.trials == 0) return "no trials";
  if (o.events == 0)
    return fmt::format("0/{}, 0 of {} trials (<= {:.0f}%)", grouped(o.calls), o.trials,
                       100 * o.trials_with_events_ci95.high);
  return fmt::format("{}/{} ({}), {} of {} trials", grouped(o.events), grouped(o.calls), percent(o.pooled.value),
                     o.trials_with_events, o.trials);
}

// A cell of the speed view (nfs_speed.h): its own table, none of the others.
bool speed_cell(const CellRecord& r) { return r.cell.config.block == nfs::kSpeedBlock; }
bool dependability_cell(const CellRecord& r) { return r.is("nfs") && !speed_cell(r); }

// A run with more than one list of operations (the preset's groups) says
// each row's; a run with one says none, as before there were more.
std::string row_of(const CellRecord& r, bool with_ops) {
  const CellConfig& c = r.cell.config;
  std::string s = c.server + (c.nfs_client.empty() ? "" : " client " + c.nfs_client) + " " + c.transport;
  if (c.reply_cache) s += *c.reply_cache ? " cache on" : " cache off";
  if (with_ops) s += " " + c.op;
  return s;
}

bool several_op_lists(const std::vector<CellRecord>& records) {
  std::set<std::string> lists;
  for (const CellRecord& r : records)
    if (dependability_cell(r)) lists.insert(r.cell.config.op);
  return lists.size() > 1;
}

std::string column_of(const CellRecord& r) {
  const CellConfig& c = r.cell.config;
  std::string f = netem::is_empty(c.faults) ? "" : netem::summary(c.faults);
  if (c.restart_at_step) f += (f.empty() ? "" : ", ") + fmt::format("restart at step {}", *c.restart_at_step);
  return f.empty() ? "no fault" : f;
}

std::string replays_table(const std::vector<CellRecord>& records, const ReportOptions& options) {
  std::vector<std::string> rows, columns;
  std::map<std::pair<std::string, std::string>, std::string> entry;
  bool with_ops = several_op_lists(records);
  for (const CellRecord& r : records) {
    if (!dependability_cell(r)) continue;
    std::string row = row_of(r, with_ops), column = column_of(r);
    if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
    if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
    std::string e;
    if (!r.ok())
      e = r.status + (r.reason.empty() ? "" : ": " + r.reason);
    else if (r.nfs.over_trials)
      e = over_trials_words(r.nfs.over_trials->duplicate_calls);
    if (r.nfs.server_ends) e += " (server not running at the end)";
    entry[{row, column}] = e;
  }
  if (rows.empty()) return "";
  std::vector<std::string> headers = {"server, client, NFS, reply cache"};
  headers.insert(headers.end(), columns.begin(), columns.end());
  TextTable t(headers);
  for (const std::string& row : rows) {
    std::vector<std::string> cells = {row};
    for (const std::string& column : columns) {
      auto it = entry.find({row, column});
      cells.push_back(it == entry.end() ? "" : it->second);
    }
    t.add(cells);
  }
  std::string title = "NFS: calls run twice (replayed: told \"exists\" or \"no such\" for their own effect, or told "
                      "success and seen to run again after a later call), of the calls judged, over trials";
  return title + "\n" + (options.markdown ? t.render_markdown() : t.render(160, 1));
}

std::string classes_table(const std::vector<CellRecord>& records, const ReportOptions& options) {
  TextTable t({"cell", "trials", "judged", "correct", "replayed, told failure", "replayed, told success", "lost", "indeterminate",
               "clean failure", "link measured", "reply-cache hits (server)", "server at the end"});
  for (const CellRecord& r : records) {
    if (!dependability_cell(r)) continue;
    if (!r.nfs.classes.has_value()) {
      t.add({r.label, r.status, "", "", "", "", "", "", "", "", r.reason});
      continue;
    }
    const NfsClassCounts& c = *r.nfs.classes;
    std::string link = "none";
    if (r.nfs.faults && r.nfs.faults->measured_loss_pct.has_value())
      link = fmt::format("loss {:.1f}%, dup {:.1f}%", *r.nfs.faults->measured_loss_pct,
                         r.nfs.faults->measured_dup_pct.value_or(0.0));
    std::string ends = "running";
    if (r.nfs.server_ends) {
      ends.clear();
      for (const std::string& e : *r.nfs.server_ends) ends += (ends.empty() ? "" : "; ") + e;
    }
    t.add({r.label, fmt::format("{}", r.trials_ok.value_or(0)), grouped(c.judged()), grouped(c.correct),
           grouped(c.replayed_told_failure), grouped(c.replayed_told_success), grouped(c.lost), grouped(c.indeterminate), grouped(c.clean_failure),
           link, r.nfs.reply_cache_hits ? grouped(*r.nfs.reply_cache_hits) : "-", ends});
  }
  if (t.empty()) return "";
  return "NFS: every cell's calls by class (docs/nfs.md, \"Classes\"); reply-cache hits as the server counts them "
         "(- where it does not say)\n" +
         (options.markdown ? t.render_markdown() : t.render(160, 1));
}

// "812 (790-934)": the median trial's figure and the range over the
// trials; one trial: its figure. (The record keeps the mean and its t
// interval too; with three trials on a busy machine that interval can
// reach below zero, the range cannot.)
std::string over_trials_figure(const std::optional<NfsOverTrials>& o) {
  if (!o || o->trials.empty()) return "-";
  std::vector<double> v = o->trials;
  std::sort(v.begin(), v.end());
  double median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  if (v.size() < 2) return fmt::format("{:.0f}", median);
  return fmt::format("{:.0f} ({:.0f}-{:.0f})", median, v.front(), v.back());
}

// A mounting client's attribute cache for the op: off (noac) or as it comes.
std::string attribute_cache(const NfsOpSpeedCell& s) {
  if (!s.mount_options) return "";
  return s.mount_options->find("noac") != std::string::npos ? "off (noac)" : "on";
}

std::string server_saw(const NfsOpSpeedCell& s) {
  if (s.server_count) return fmt::format("{} {} of {}", *s.server_counter, grouped(*s.server_count), grouped(s.calls_made));
  return "no counter";
}

std::string speed_table(const std::vector<CellRecord>& records, const ReportOptions& options) {
  TextTable t({"server, client, NFS", "op", "trials", "calls", "p50 us", "p99 us", "ops/s", "server counted (of calls "
               "made)", "attr cache"});
  bool pinned = true, withheld = false, some = false;
  for (const CellRecord& r : records) {
    if (!r.is("nfs") || !speed_cell(r)) continue;
    const CellConfig& c = r.cell.config;
    std::string row = c.server + (c.nfs_client.empty() ? "" : " client " + c.nfs_client) + " " + c.transport;
    if (!r.nfs.speed) {
      t.add({row, c.op, r.status, "", "", "", "", r.reason, ""});
      continue;
    }
    some = true;
    pinned = pinned && r.nfs.latency_pinned.value_or(false);
    for (const NfsOpSpeedCell& s : *r.nfs.speed) {
      withheld = withheld || s.withheld.has_value();
      std::string calls = grouped(s.calls) + (s.errors ? fmt::format(" ({} failed)", grouped(s.errors)) : "");
      if (s.withheld) {
        t.add({row, s.op, std::to_string(s.trials), calls, "withheld", "", "", *s.withheld, attribute_cache(s)});
        continue;
      }
      t.add({row, s.op, std::to_string(s.trials), calls, over_trials_figure(s.p50_us), over_trials_figure(s.p99_us),
             over_trials_figure(s.ops_per_s), server_saw(s), attribute_cache(s)});
    }
  }
  if (t.empty()) return "";
  std::string out =
      "NFS speed: GETATTR (of the export's root) and MKDIR (fresh names), no fault, one client, closed loop; each\n"
      "trial's p50 and p99 (p99 from 100 calls on) of the calls told NFS3_OK and its ops/s (calls / the timed loop's\n"
      "wall time); shown: the median trial's figure (the range over the trials); warm-up calls not counted. The\n"
      "kernel client's GETATTR is stat(2) on a noac mount (attr cache off), so each goes to the server. \"server\n"
      "counted\": the server's own counter of the op (warm-up and mount included; knfsd's /proc/net/rpc/nfsd); \"no\n"
      "counter\" where it keeps none (nfs-ganesha; there rpclab's client, which keeps no cache, had each call\n"
      "answered by the server).\n";
  if (some)
    out += pinned ? "Timing: /dev/cpu_dma_latency held at 0.\n"
                  : "Timing: /dev/cpu_dma_latency NOT held at 0 for every trial: the figures include idle wake-ups.\n";
  if (withheld) out += "(withheld: a trial's calls were not all seen at the server, so its figures are no result)\n";
  return out + (options.markdown ? t.render_markdown() : t.render(160, 1));
}

// Each cell's calls by operation: which operation was replayed, and that
// the idempotent control (WRITE) and CREATE EXCLUSIVE were not.
std::string ops_table(const std::vector<CellRecord>& records, const ReportOptions& options) {
  TextTable t({"cell", "operation", "judged", "correct", "replayed, told failure", "replayed, told success", "lost", "indeterminate",
               "clean failure", "not judged"});
  for (const CellRecord& r : records) {
    if (!dependability_cell(r) || !r.nfs.classes_by_op) continue;
    for (const auto& [op, c] : *r.nfs.classes_by_op)
      t.add({r.label, op, grouped(c.judged()), grouped(c.correct), grouped(c.replayed_told_failure), grouped(c.replayed_told_success), grouped(c.lost),
             grouped(c.indeterminate), grouped(c.clean_failure), grouped(c.not_judged)});
  }
  if (t.empty()) return "";
  return "NFS: every cell's calls by operation and class (docs/nfs.md, \"Classes\")\n" +
         (options.markdown ? t.render_markdown() : t.render(160, 1));
}

}  // namespace

std::vector<ReportTable> nfs_tables() {
  return {
      {"nfs", "NFS servers x version/transport x reply cache by fault: calls replayed and told failure, over trials",
       replays_table},
      {"nfs-classes", "every NFS cell's calls by class, the fault measured on the link, the server's end",
       classes_table},
      {"nfs-speed", "NFS servers x client x version/transport: p50, p99 and ops/s of GETATTR and MKDIR, no fault",
       speed_table},
      {"nfs-ops", "every NFS cell's calls by operation and class", ops_table},
  };
}

CellFigures nfs_cell_figures() {
  CellFigures f;
  f.headers = {"calls", "correct", "replayed, told failure", "replayed, told success", "lost", "indeterminate", "clean failure", "not judged",
               "reply-cache hits", "server"};
  f.values = [](const CellRecord& r) -> std::vector<std::string> {
    if (!r.nfs.classes.value) return {};
    const NfsClassCounts& c = *r.nfs.classes.value;
    std::string ends = "running";
    if (r.nfs.server_ends) {
      ends.clear();
      for (const std::string& e : *r.nfs.server_ends) ends += (ends.empty() ? "" : "; ") + e;
    }
    return {grouped(c.calls),         grouped(c.correct),       grouped(c.replayed_told_failure), grouped(c.replayed_told_success), grouped(c.lost),
            grouped(c.indeterminate), grouped(c.clean_failure), grouped(c.not_judged),
            r.nfs.reply_cache_hits ? grouped(*r.nfs.reply_cache_hits) : "-", ends};
  };
  f.note = "The class of every workload call, summed over the cell's trials (a step's calls before its last are not "
           "judged); reply-cache hits where the server says (knfsd's /proc), - where it does not.";
  return f;
}

}  // namespace rpclab::harness
