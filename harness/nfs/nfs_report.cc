#include "harness/nfs/nfs_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "harness/kit/text_table.h"
#include "netem/config/fault_config.h"
#include "netem/spec/fault_fields.h"

namespace rpclab::harness {
namespace {

std::string percent(double per_million) { return fmt::format("{:.1f}%", per_million / 10000); }

// "2/300 (0.7%), 2 of 3 trials"; none: "0/300 (<1.3%), 0 of 3 trials".
std::string over_trials_words(const OverTrials& o) {
  if (o.trials == 0) return "no trials";
  if (o.events == 0)
    return fmt::format("0/{} (<{}), 0 of {} trials", grouped(o.calls), percent(o.pooled.ci95_high), o.trials);
  return fmt::format("{}/{} ({}), {} of {} trials", grouped(o.events), grouped(o.calls), percent(o.pooled.value),
                     o.trials_with_events, o.trials);
}

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
    if (r.is("nfs")) lists.insert(r.cell.config.op);
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
    if (!r.is("nfs")) continue;
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
  std::string title = "NFS: calls told \"exists\" or \"no such\" for their own effect (replayed, told failure), of "
                      "the calls judged, over trials";
  return title + "\n" + (options.markdown ? t.render_markdown() : t.render(160, 1));
}

std::string classes_table(const std::vector<CellRecord>& records, const ReportOptions& options) {
  TextTable t({"cell", "trials", "judged", "correct", "replayed, told failure", "lost", "indeterminate",
               "clean failure", "link measured", "reply-cache hits (server)", "server at the end"});
  for (const CellRecord& r : records) {
    if (!r.is("nfs")) continue;
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
           grouped(c.replayed_told_failure), grouped(c.lost), grouped(c.indeterminate), grouped(c.clean_failure),
           link, r.nfs.reply_cache_hits ? grouped(*r.nfs.reply_cache_hits) : "-", ends});
  }
  if (t.empty()) return "";
  return "NFS: every cell's calls by class (docs/nfs.md, \"Classes\"); reply-cache hits as the server counts them "
         "(- where it does not say)\n" +
         (options.markdown ? t.render_markdown() : t.render(160, 1));
}

// Each cell's calls by operation: which operation was replayed, and that
// the idempotent control (WRITE) and CREATE EXCLUSIVE were not.
std::string ops_table(const std::vector<CellRecord>& records, const ReportOptions& options) {
  TextTable t({"cell", "operation", "judged", "correct", "replayed, told failure", "lost", "indeterminate",
               "clean failure", "not judged"});
  for (const CellRecord& r : records) {
    if (!r.is("nfs") || !r.nfs.classes_by_op) continue;
    for (const auto& [op, c] : *r.nfs.classes_by_op)
      t.add({r.label, op, grouped(c.judged()), grouped(c.correct), grouped(c.replayed_told_failure), grouped(c.lost),
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
      {"nfs-ops", "every NFS cell's calls by operation and class", ops_table},
  };
}

}  // namespace rpclab::harness
