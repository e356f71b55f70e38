#include "harness/dependability/dependability_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "transport/transport.h"
#include "harness/causes/causes_report.h"
#include "harness/dependability/paths_report.h"
#include "harness/dependability/surface.h"
#include "harness/dependability/verdict.h"
#include "harness/kit/data_csv.h"
#include "transport/settings_table.h"
#include "harness/kit/text_table.h"
#include "harness/run/trial_stats.h"
#include "netem/config/fault_config.h"
#include "netem/spec/fault_fields.h"

namespace rpclab::harness {
namespace {

// Terminal tables wider than this are split into several.
constexpr size_t kWidth = 118;

// A cell on a path of replicas has its own table (paths_report.h): Levy's
// tables and the failures table are about one client and one server.
bool usable(const CellRecord& r) { return r.is("dependability") && r.ok() && !on_path(r); }

// One interval the old way, for the table of classes and older records.
std::string rate_cell(const CellRecord& r) {
  RatePerMillion silent = r.dependability.silent_per_million.value_or(RatePerMillion{});
  if (silent.value == 0) return "0 (<" + per_million(silent.ci95_high) + ")";
  return fmt::format("{} [{}-{}]", per_million(silent.value), per_million(silent.ci95_low),
                     per_million(silent.ci95_high));
}

double duplicate_calls_per_million(const CellRecord& r) {
  const std::optional<ClassRates>& rates = r.dependability.rates_per_million;
  return rates && rates->duplicate_calls ? rates->duplicate_calls->value : 0;
}

// With the cell's price beside it: a zero bought by telling the client
// that calls which ran had failed is not free (issue 39).
std::string silent_and_dup(const CellRecord& r) {
  double silent = r.dependability.silent_per_million ? r.dependability.silent_per_million->value : 0;
  std::string price = told_failed_share(r);
  return per_million(silent) + " / " + per_million(duplicate_calls_per_million(r)) +
         (price.empty() ? "" : " (" + price + " told failed)");
}

// The Levy tables' words for the price beside a cell's figures.
const char* const kPriceNote =
    " (N% told failed): the share of the cell's calls the server ran although the client was told they failed "
    "(indeterminate, and calls run twice reported failed), what a remedy's zero costs the caller, who must find "
    "out whether each ran.";

// A figure over the cell's trials; none in a record from before trials.
const OverTrials* over(const CellRecord& r, OverTrials OverTrialsFigures::*figure) {
  return r.dependability.over_trials ? &(*r.dependability.over_trials.*figure) : nullptr;
}

std::string headline(const CellRecord& r) {
  const OverTrials* o = over(r, &OverTrialsFigures::silent);
  return o ? trials_headline(*o) : rate_cell(r);  // a record from before trials
}

// "12 [0-40]": the median of the trials' rates and the pooled rate's 95%
// bootstrap interval over trials; "12 (0-40)" below kLeastBootstrapTrials,
// the trials' range instead.
std::string median_and_spread(const CellRecord& r) {
  const OverTrials* o = over(r, &OverTrialsFigures::silent);
  if (!o || o->trials == 0) return "-";
  std::string name;
  Interval spread = pooled_spread(*o, &name);
  bool range = name == "range";
  return fmt::format("{} {}{}-{}{}", per_million(o->median_per_million), range ? "(" : "[", per_million(spread.low),
                     per_million(spread.high), range ? ")" : "]");
}

std::string onsets(const CellRecord& r) {
  if (!r.dependability.episodes) return "-";
  const std::vector<size_t>& n = r.dependability.episodes->onsets_per_trial;
  if (n.size() <= 8) {
    std::string s;
    for (size_t x : n) s += (s.empty() ? "" : ",") + std::to_string(x);
    return s;
  }
  size_t total = 0, most = 0;
  for (size_t x : n) total += x, most = std::max(most, x);
  return fmt::format("{} (<= {}/trial)", total, most);
}

std::string one_decimal(const std::optional<double>& v) { return v ? fixed(*v, 1) : "-"; }

// What the cell's line cannot hold: spreads far beyond chance, where the
// errors came from (onsets), failed trials.
std::string cell_note(const CellRecord& r) {
  std::vector<std::string> notes;
  const OverTrials* silent_over = over(r, &OverTrialsFigures::silent);
  const OverTrials* dup_over = over(r, &OverTrialsFigures::duplicate_calls);
  std::string silent = silent_over ? dispersion_note(*silent_over) : "";
  std::string dup = dup_over ? dispersion_note(*dup_over) : "";
  if (!silent.empty()) notes.push_back("silent errors: " + silent);
  if (!dup.empty() && dup != silent) notes.push_back("dup calls: " + dup);
  if (r.dependability.episodes && !r.dependability.episodes->note.empty())
    notes.push_back(r.dependability.episodes->note);
  if (!r.reason.empty()) notes.push_back(r.reason);
  std::string out;
  for (const std::string& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

template <typename Key>
void add_unique(std::vector<Key>& seen, const Key& k) {
  if (std::find(seen.begin(), seen.end(), k) == seen.end()) seen.push_back(k);
}

std::string fault_column(const CellRecord& r) {
  const CellConfig& cell = r.cell.config;
  std::string s = fmt::format("loss {}% dup {}%", cell.faults.loss_pct, cell.faults.dup_pct);
  return cell.hogs ? s + fmt::format(" load {}", cell.hogs) : s;
}

// The kinds of a cell's timed events: "server-crash", "partition+reset".
std::string event_kinds(const CellRecord& r) {
  std::string kinds;
  for (const netem::FaultEvent& e : r.cell.config.faults.events) {
    std::string kind = e.kind ? e.kind->name : "?";
    if (kinds.find(kind) == std::string::npos) kinds += (kinds.empty() ? "" : "+") + kind;
  }
  return kinds;
}

// "1/5": loss 1%, duplication 5%, for the trials table's narrow column;
// the events' kinds for a cell with events.
std::string fault_short(const CellRecord& r) {
  if (has_events(r)) return event_kinds(r);
  const CellConfig& cell = r.cell.config;
  std::string s = fmt::format("{}/{}", cell.faults.loss_pct, cell.faults.dup_pct);
  return cell.hogs ? s + fmt::format(" load {}", cell.hogs) : s;
}

std::string range_text(std::vector<double> v) {
  if (v.empty()) return "-";
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return fixed(*lo, 1) == fixed(*hi, 1) ? fixed(*lo, 1) : fixed(*lo, 1) + "-" + fixed(*hi, 1);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

// Levy's 1989 dependability rows, his load columns in order ("-" where
// he did not run one), from the CSV.
std::vector<std::pair<std::string, std::vector<std::string>>> levy_rows(const std::string& data_dir) {
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  for (const auto& row : read_csv(data_dir + "/levy1989-dependability.csv")) {
    std::vector<std::string> cells;
    for (const LevyLoadColumn& c : levy_load_columns()) {
      auto it = row.find(c.column);
      cells.push_back(it == row.end() || it->second.empty() ? "-" : it->second);
    }
    rows.emplace_back(row.count("system") ? row.at("system") + " (Levy 1989)" : "? (Levy 1989)", cells);
  }
  return rows;
}

// The cells of one table: records, the row names (without the client count
// when every cell has the same, which the title says instead), columns.
struct Grid {
  std::vector<const CellRecord*> records;
  bool same_clients = true;
  std::string row(const CellRecord& r) const { return row_variant(r, !same_clients); }
  std::string clients_note() const {
    if (records.empty() || !same_clients) return "";
    int n = records.front()->clients;
    return n > 1 ? fmt::format(", {} clients a cell", n) : "";
  }
};

// The records of one kind of table: no faults (load), steady faults, or
// timed events (failures).
enum class Kind { kLoad, kFaults, kEvents };
Kind kind_of(const CellRecord& r) {
  return has_events(r) ? Kind::kEvents : has_faults(r) ? Kind::kFaults : Kind::kLoad;
}

Grid grid(const std::vector<CellRecord>& records, Kind kind) {
  Grid g;
  for (const CellRecord& r : records)
    if (usable(r) && kind_of(r) == kind) g.records.push_back(&r);
  for (const CellRecord* r : g.records) g.same_clients &= r->clients == g.records.front()->clients;
  return g;
}

std::string section(const std::string& title, const TextTable& t, const ReportOptions& o) {
  return (o.markdown ? title : wrapped(title, kWidth)) + "\n\n" + (o.markdown ? t.render_markdown() : t.render(kWidth));
}

void add_levy_rows(TextTable& t, const std::vector<int>& hogs, const std::string& data_dir) {
  auto levy = levy_rows(data_dir);
  if (levy.empty()) return;
  t.rule();
  const std::vector<LevyLoadColumn>& columns = levy_load_columns();
  for (auto& [name, cells] : levy) {
    std::vector<std::string> row = {name};
    for (int h : hogs) {
      auto it = std::find_if(columns.begin(), columns.end(), [h](const LevyLoadColumn& c) { return c.hogs == h; });
      size_t col = static_cast<size_t>(it - columns.begin());
      row.push_back(it != columns.end() && col < cells.size() ? cells[col] : "");
    }
    t.add(row);
  }
}

std::string levy_load(const std::vector<CellRecord>& records, const ReportOptions& o) {
  Grid g = grid(records, Kind::kLoad);
  if (g.records.empty()) return "";
  std::vector<int> hogs;
  std::vector<std::string> variants;
  std::map<std::pair<std::string, int>, const CellRecord*> cell;
  for (const CellRecord* r : g.records) {
    int h = r->cell.config.hogs;
    add_unique(hogs, h);
    add_unique(variants, g.row(*r));
    cell[{g.row(*r), h}] = r;
  }
  std::sort(hogs.begin(), hogs.end());
  std::vector<std::string> headers = {"silent / dup calls per 1,000,000"};
  for (int h : hogs) headers.push_back(fmt::format("load {}", h));
  TextTable t(headers);
  for (const std::string& v : variants) {
    std::vector<std::string> row = {v};
    for (int h : hogs) row.push_back(cell.count({v, h}) ? silent_and_dup(*cell[{v, h}]) : "-");
    t.add(row);
  }
  // The load on the server's CPU, as each column's cells measured it.
  for (auto [label, figure, scale] :
       {std::tuple{"server CPU: runnable tasks", &CellLoad::server_cpu_run_queue, 1.0},
        std::tuple{"server: wait per timeslice, ms", &CellLoad::server_wait_us_per_timeslice, 1e-3},
        std::tuple{"machine: runnable tasks (all CPUs)", &CellLoad::run_queue_mean, 1.0}}) {
    std::vector<std::string> row = {label};
    for (int h : hogs) {
      std::vector<double> v;
      for (const CellRecord* r : g.records)
        if (r->cell.config.hogs == h && r->dependability.load && (*r->dependability.load.*figure).has_value())
          v.push_back(*(*r->dependability.load.*figure) * scale);
      row.push_back(v.empty() ? "-" : fixed(mean(v), scale < 1 ? 2 : 1));
    }
    t.add(row);
  }
  add_levy_rows(t, hogs, o.data_dir);
  return section("Dependability (Levy's layout" + g.clients_note() +
                     "; retry 15 s is libtirpc's default): silent errors (silent losses + calls run twice that the "
                     "client saw succeed) / duplicate "
                     "calls (calls run twice or more, whatever the client was told), each per 1,000,000 calls over "
                     "all the cell's trials. Load = CPU-bound hogs on the server's CPU; below, what that CPU's run "
                     "queue and the server's own wait to run measured. Over trials, with intervals: next table." +
                     kPriceNote,
                 t, o);
}

std::string levy_faults(const std::vector<CellRecord>& records, const ReportOptions& o) {
  Grid g = grid(records, Kind::kFaults);
  if (g.records.empty()) return "";
  std::vector<std::string> columns, variants, backends;
  std::map<std::pair<std::string, std::string>, const CellRecord*> cell;
  for (const CellRecord* r : g.records) {
    add_unique(columns, fault_column(*r));
    add_unique(variants, g.row(*r));
    add_unique(backends, r->dependability.faults ? r->dependability.faults->backend : std::string("?"));
    cell[{g.row(*r), fault_column(*r)}] = r;
  }
  std::vector<std::string> headers = {"silent / dup calls per 1,000,000"};
  headers.insert(headers.end(), columns.begin(), columns.end());
  TextTable t(headers);
  for (const std::string& v : variants) {
    std::vector<std::string> row = {v};
    for (const std::string& c : columns) row.push_back(cell.count({v, c}) ? silent_and_dup(*cell[{v, c}]) : "-");
    t.add(row);
  }
  std::vector<std::string> measured = {"measured loss% / dup%"};
  for (const std::string& c : columns) {
    std::vector<double> loss, dup;
    for (const std::string& v : variants) {
      if (!cell.count({v, c}) || !cell[{v, c}]->dependability.faults) continue;
      const CellFaults& f = *cell[{v, c}]->dependability.faults;
      if (!f.measured_loss_pct.has_value()) continue;
      loss.push_back(*f.measured_loss_pct);
      dup.push_back(f.measured_dup_pct.value_or(0.0));
    }
    measured.push_back(loss.empty() ? "-" : range_text(loss) + " / " + range_text(dup));
  }
  t.add(measured);
  std::string by;
  for (const std::string& b : backends)  // the 0/0 control cell has no backend: not one that made faults
    if (b != "none") by += (by.empty() ? "" : ", ") + b;
  if (by.empty()) by = "no backend";
  return section("Dependability under network faults (two-host link" + g.clients_note() +
                     "): silent errors / duplicate calls per 1,000,000 calls over all the cell's trials; measured = "
                     "what the link's counters saw in every cell of the column (range over the rows), by " + by + "." +
                     kPriceNote,
                 t, o);
}

// One line per cell over its trials, grouped by row variant, the variants
// in the order of their first cell (the matrix's, which is the transport
// table's), as in the Levy tables above.
std::string trials_table(const std::vector<CellRecord>& records, bool faults, const ReportOptions& o) {
  Grid g = grid(records, faults ? Kind::kFaults : Kind::kLoad);
  if (faults) {  // the failures' cells too, after the steady faults'
    Grid events = grid(records, Kind::kEvents);
    g.records.insert(g.records.end(), events.records.begin(), events.records.end());
  }
  if (g.records.empty()) return "";
  std::map<std::string, size_t> first;
  for (const CellRecord* r : g.records) first.emplace(g.row(*r), first.size());
  std::vector<const CellRecord*> sorted = g.records;
  std::stable_sort(sorted.begin(), sorted.end(), [&](const CellRecord* a, const CellRecord* b) {
    if (g.row(*a) != g.row(*b)) return first.at(g.row(*a)) < first.at(g.row(*b));
    return faults ? false : a->cell.config.hogs < b->cell.config.hogs;
  });
  TextTable t({"cell", faults ? "loss/dup" : "load", "silent/M over trials", "median [spread]", "onsets", "dup/M",
               "CPU rq"});
  std::string last;
  for (const CellRecord* r : sorted) {
    std::string variant = g.row(*r);
    const std::optional<CellLoad>& load = r->dependability.load;
    t.add({variant == last ? "" : variant, faults ? fault_short(*r) : std::to_string(r->cell.config.hogs),
           headline(*r), median_and_spread(*r), onsets(*r), per_million(duplicate_calls_per_million(*r)),
           one_decimal(load ? load->server_cpu_run_queue.value : std::nullopt)});
    t.note(cell_note(*r));
    last = variant;
  }
  return section(std::string(faults ? "Under faults" : "Under load") + ", over trials" + g.clients_note() +
                     ": silent errors per 1,000,000 calls (silent/M) in how many of a cell's independent trials, "
                     "and how many (with no error in any trial, \"(<=71%)\" is how often a trial could still have one, the "
                     "Clopper-Pearson upper end over the trials); the median of the trials' rates and [a 95% bootstrap interval of the pooled rate] "
                     "(trials, then clients, resampled), or, below " + std::to_string(kLeastBootstrapTrials) +
                     " trials, (the trials' range); onsets (a cascade counts once) per trial; dup/M: duplicate "
                     "calls per 1,000,000; CPU rq: runnable tasks on the server's CPU, as measured" +
                     (faults ? "; loss/dup: the link's loss and duplication, %." : ".") +
                     " A note under a cell: spreads far beyond chance, where its errors came from, failed trials.",
                 t, o);
}

// Every class of a failures cell, as counts over its trials: silent loss /
// silent duplicate / duplicate told failure / indeterminate / clean failure.
std::string five_classes(const CellRecord& r) {
  ClassCounts c = r.dependability.classes.value_or(ClassCounts{});
  uint64_t told_failure = c.duplicate_calls - std::min(c.duplicate_calls, c.silent_duplicates);
  return fmt::format("{} / {} / {} / {} / {}", grouped(c.silent_loss), grouped(c.silent_duplicates),
                     grouped(told_failure), grouped(c.indeterminate), grouped(c.clean_failure));
}

// How many occurrences each trial of the column's cells had, e.g. "3 x 2".
std::string occurrences(const std::vector<const CellRecord*>& cells) {
  std::vector<size_t> n;
  for (const CellRecord* r : cells)
    if (r->dependability.events)
      for (size_t k : r->dependability.events->occurrences_per_trial) n.push_back(k);
  if (n.empty()) return "-";
  auto [lo, hi] = std::minmax_element(n.begin(), n.end());
  return *lo == *hi ? std::to_string(*lo) : fmt::format("{}-{}", *lo, *hi);
}

// Levy's layout for the failures TCP cannot hide: a row per transport,
// retry policy and at-most-once, a column per kind of event, every class.
std::string failures_table(const std::vector<CellRecord>& records, const ReportOptions& o) {
  Grid g = grid(records, Kind::kEvents);
  // A cell that failed or was skipped keeps its place, named as such: an
  // empty place would read as a cell never planned, five zeros as one measured.
  std::vector<const CellRecord*> all = g.records;
  for (const CellRecord& r : records)
    if (r.is("dependability") && !r.ok() && !on_path(r) && kind_of(r) == Kind::kEvents) all.push_back(&r);
  if (all.empty()) return "";
  std::vector<std::string> columns, variants, schedules;
  std::map<std::pair<std::string, std::string>, const CellRecord*> cell;
  std::map<std::string, std::vector<const CellRecord*>> by_column;
  for (const CellRecord* r : all) {
    std::string col = event_kinds(*r);
    add_unique(columns, col);
    add_unique(variants, g.row(*r));
    add_unique(schedules, netem::summary(r->cell.config.faults));
    cell[{g.row(*r), col}] = r;
    if (r->ok()) by_column[col].push_back(r);
  }
  TextTable t([&] {
    std::vector<std::string> h = {"calls: silent loss / silent dup / dup told failure / indeterminate / clean fail"};
    h.insert(h.end(), columns.begin(), columns.end());
    return h;
  }());
  for (const std::string& v : variants) {
    std::vector<std::string> row = {v};
    for (const std::string& c : columns) {
      const CellRecord* r = cell.count({v, c}) ? cell[{v, c}] : nullptr;
      row.push_back(!r ? "-" : r->ok() ? five_classes(*r) : "not measured (" + r->status + ")");
    }
    t.add(row);
  }
  std::vector<std::string> occurred = {"events per trial (each cell)"};
  for (const std::string& c : columns) occurred.push_back(occurrences(by_column[c]));
  t.add(occurred);
  std::string what;
  for (const std::string& s : schedules) what += (what.empty() ? "" : "; ") + s;
  return section("Failures TCP cannot hide (" + what + g.clients_note() +
                     "): calls by class, counted over all the cell's trials. silent dup = ran twice or more and the "
                     "client saw success; dup told failure = ran twice or more and the client was told it failed; "
                     "indeterminate = ran once, reported as failed; clean fail = never ran, reported as failed. "
                     "+app:K = the client's own retry loop (a new handle, the same call up to K times more); "
                     "+at-most-once = the server answers a repeat from its table; not measured = the cell failed or "
                     "was skipped (why: \"Cells not measured\" below).",
                 t, o);
}

std::string classes_table(const std::vector<CellRecord>& records, const ReportOptions& o) {
  TextTable t({"cell", "trials", "calls", "correct", "silent loss", "dup calls", "extra exec", "silent dup",
               "indeterm.", "clean fail", "Levy mism.", "silent/M", "calls/s"});
  for (const CellRecord& r : records) {
    if (!usable(r)) continue;
    ClassCounts c = r.dependability.classes.value_or(ClassCounts{});
    t.add({r.label, fmt::format("{}/{}", r.trials_ok.value_or(1), r.trials.value_or(1)), grouped(c.calls),
           grouped(c.correct), grouped(c.silent_loss), grouped(c.duplicate_calls), grouped(c.extra_executions),
           grouped(c.silent_duplicates), grouped(c.indeterminate), grouped(c.clean_failure),
           grouped(c.levy_mismatches), per_million(r.dependability.silent_per_million.value_or(RatePerMillion{}).value),
           fixed(r.dependability.calls_per_s.value_or(0.0), 0)});
  }
  if (t.empty()) return "";
  // No interval here: the calls of a trial are not independent, so one over
  // them would be too narrow (issue 26); the trials tables give them.
  return section("Every call, by class (all trials of each cell together; silent/M is the pooled rate, its "
                 "intervals over trials are in the trials tables):",
                 t, o);
}

std::string causes_section(const std::vector<CellRecord>& records, const ReportOptions& o) {
  TextTable t = causes_table(records);
  if (t.empty()) return "";
  return section("Why each extra execution ran (all trials of each cell together): copy = a network copy of the "
                 "request; rexmit = the client's retransmit timer; stale = libtirpc's resend on a reply to another "
                 "XID; lib = the library's retry; app = the application's retry; unexpl = not shown (no capture, or "
                 "datagrams lost where it cannot tell which); cascades = runs of 2 or more consecutive calls of one "
                 "client that each ran more than once, by the cause of the first one's extra execution; capture = "
                 "the wire capture's backend (bpf, or nflog where the kernel refuses eBPF), or why there was none "
                 "(docs/dependability.md, \"How a cause is decided\").",
                 t, o);
}

std::string not_measured(const std::vector<CellRecord>& records, bool markdown) {
  std::vector<std::string> items;
  for (const CellRecord& r : records)
    if (r.is("dependability") && !r.ok()) items.push_back(fmt::format("{} {}: {}", r.status, r.label, r.reason));
  return item_list("Cells not measured:", items, markdown);
}

}  // namespace

const std::vector<ReportTable>& dependability_tables() {
  using Records = std::vector<CellRecord>;
  static const std::vector<ReportTable> tables = {
      {"verdict", "the answer at a glance: which cells lost or ran calls twice in how many trials, which were clean, "
                  "what each remedy cost", verdict_section, true, false, true},
      {"levy-load", "silent errors and calls run twice per 1,000,000 against server load, beside Levy's 1989 figures",
       levy_load},
      {"levy-faults", "the same under network loss and duplication", levy_faults},
      {"failures", "failures TCP cannot hide: every class per transport, retry policy and at-most-once, by event",
       failures_table},
      {"trials-load", "the load cells over their trials: in how many, median and interval, onsets",
       [](const Records& r, const ReportOptions& o) { return trials_table(r, false, o); }},
      {"trials-faults", "the fault cells over their trials",
       [](const Records& r, const ReportOptions& o) { return trials_table(r, true, o); }},
      {"surface", "levy-surface: in how many trials a cascade started, errors per onset, silent errors, by "
                  "retransmit interval and load", surface_table},
      {"paths", "the path people deploy: each proxy setting and gRPC's balancing before replicas, by replica event "
                "and at-most-once remedy: calls run twice, in how many trials, where and why", paths_table},
      {"classes", "every call by class", classes_table},
      {"causes", "why each call that ran twice did, and the cascades", causes_section},
      {"not-measured", "cells skipped or failed, and why",
       [](const Records& r, const ReportOptions& o) { return not_measured(r, o.markdown); }},
  };
  return tables;
}

std::string dependability_report(const std::vector<CellRecord>& records, const ReportOptions& options) {
  return render_report(dependability_tables(), records, options);
}

CellFigures dependability_cell_figures() {
  CellFigures f;
  f.headers = {"calls",     "correct",       "silent loss", "silent dup", "dup calls", "indeterminate",
               "clean failure", "silent per 1M, median of trials [spread]"};
  f.values = [](const CellRecord& r) -> std::vector<std::string> {
    const std::optional<ClassCounts>& c = r.dependability.classes.value;
    if (!c) return {};
    return {grouped(c->calls),          grouped(c->correct),        grouped(c->silent_loss),
            grouped(c->silent_duplicates), grouped(c->duplicate_calls), grouped(c->indeterminate),
            grouped(c->clean_failure),  median_and_spread(r)};
  };
  f.note = "The classes of every call, summed over the cell's trials; the silent errors over trials as the trials "
           "table gives them (the trial is the unit: no interval over the calls, which are not independent).";
  return f;
}

}  // namespace rpclab::harness
