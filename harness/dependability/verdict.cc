#include "harness/dependability/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

#include "harness/dependability/cell_words.h"
#include "harness/dependability/paths_report.h"
#include "harness/kit/text_table.h"
#include "netem/config/fault_config.h"

namespace rpclab::harness {
namespace {

constexpr size_t kWidth = 118;      // the report's text width (dependability_report.cc)
constexpr size_t kMostCells = 4;    // lines of one kind before "and N more": the verdict stays a glance
constexpr size_t kMostNames = 16;   // cells named in one line before "and N more"

// The figure over trials of a record, or, for a record written before
// trials, the whole cell as one trial.
struct Figure {
  size_t trials = 0;
  size_t with = 0;  // trials with at least one
  double most = 0;          // the highest trial's rate, per million
  double cp_high = 1;      // Clopper-Pearson upper end of the fraction of trials with one
  double wilson_high = 0;  // per million, the pooled calls as if independent
};

Figure figure(const CellRecord& r, OverTrials OverTrialsFigures::*which, uint64_t events_if_old) {
  Figure f;
  if (r.dependability.over_trials) {
    const OverTrials& o = *r.dependability.over_trials.*which;
    f.trials = o.trials;
    f.with = o.trials_with_events;
    f.most = o.max_per_million;
    f.cp_high = o.trials_with_events_ci95.high;
    f.wilson_high = o.pooled.ci95_high;
    return f;
  }
  f.trials = 1;
  f.with = events_if_old ? 1 : 0;
  RatePerMillion silent = r.dependability.silent_per_million.value_or(RatePerMillion{});
  f.most = silent.value;
  f.wilson_high = silent.ci95_high;
  return f;
}

std::string trials_word(size_t n) { return n == 1 ? "1 trial" : fmt::format("{} trials", n); }

// Wall time per call of one client (its calls run one after another).
std::optional<double> ms_per_call(const CellRecord& r) {
  const ClassCounts c = r.dependability.classes.value_or(ClassCounts{});
  double wall = r.dependability.client_wall_s.value_or(0.0);
  if (!c.calls || wall <= 0) return std::nullopt;
  return 1000.0 * wall * std::max(1, r.cell.config.clients) / static_cast<double>(c.calls);
}

std::string ms_text(double ms) { return fixed(ms, ms < 1 ? 2 : 1) + " ms"; }

// The same cell without what `r` adds to it (a setting such as the reply
// cache, or at-most-once): same transport, calls' conditions, clients,
// connection and retry policy, and settings that `r` holds with more.
bool remedy_of(const CellRecord& remedied, const CellRecord& plain) {
  const CellConfig& a = remedied.cell.config;
  const CellConfig& b = plain.cell.config;
  if (a.transport != b.transport || a.clients != b.clients || a.connect != b.connect || a.hogs != b.hogs ||
      a.retry.name() != b.retry.name() || a.path != b.path || condition_words(remedied) != condition_words(plain))
    return false;
  const auto& more = a.settings.values();
  const auto& fewer = b.settings.values();
  for (const auto& [name, value] : fewer) {
    auto it = more.find(name);
    if (it == more.end() || it->second != value) return false;
  }
  bool adds_setting = more.size() > fewer.size();
  return (adds_setting && a.at_most_once == b.at_most_once) ||
         (a.at_most_once && !b.at_most_once && more.size() == fewer.size());
}

const CellRecord* plain_sibling(const CellRecord& r, const std::vector<const CellRecord*>& cells) {
  for (const CellRecord* other : cells)
    if (other != &r && remedy_of(r, *other)) return other;
  return nullptr;
}

// "; 2,874 of 3,000 calls (96%) reported failed although they ran", or "".
std::string price_words(const CellRecord& r) {
  ClassCounts c = r.dependability.classes.value_or(ClassCounts{});
  uint64_t told = c.ran_but_told_failed();
  if (!told) return "";
  return fmt::format("{} of {} calls ({}) reported failed although they ran", grouped(told), grouped(c.calls),
                     told_failed_share(r));
}

std::string lost_line(const CellRecord& r) {
  ClassCounts c = r.dependability.classes.value_or(ClassCounts{});
  Figure s = figure(r, &OverTrialsFigures::silent, c.silent());
  Figure d = figure(r, &OverTrialsFigures::duplicate_calls, c.duplicate_calls);
  std::string silent = s.with ? fmt::format("silent errors in {} of {} (up to {} per million calls in a trial)",
                                            s.with, trials_word(s.trials), per_million(s.most))
                              : fmt::format("no silent error in {}", trials_word(s.trials));
  std::string dup = d.with ? fmt::format("calls run twice in {} of {} (up to {} per million)", d.with,
                                         trials_word(d.trials), per_million(d.most))
                           : "none run twice";
  std::string price = price_words(r);
  return fmt::format("{}: {}, {}{}.", cell_name(r), silent, dup, price.empty() ? "" : "; " + price);
}

std::string priced_line(const CellRecord& r, const std::vector<const CellRecord*>& cells) {
  ClassCounts c = r.dependability.classes.value_or(ClassCounts{});
  Figure s = figure(r, &OverTrialsFigures::silent, c.silent());
  std::string time;
  if (std::optional<double> ms = ms_per_call(r)) {
    time = "; " + ms_text(*ms) + " per call";
    const CellRecord* plain = plain_sibling(r, cells);
    if (plain && ms_per_call(*plain))
      time += fmt::format(" ({} without it: {})", row_variant(*plain), ms_text(*ms_per_call(*plain)));
  }
  return fmt::format("{}: nothing lost or run twice in {}, at a price: {}{}.", cell_name(r),
                     s.trials == 1 ? "its trial" : fmt::format("all {}", trials_word(s.trials)), price_words(r),
                     time);
}

std::string names(const std::vector<std::string>& all) {
  std::string out;
  size_t shown = std::min(all.size(), kMostNames);
  for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + all[i];
  if (all.size() > shown) out += fmt::format(" and {} more", all.size() - shown);
  return out;
}

// The clean cells of one trial count: one line, the cells named
// by condition, then what so many clean trials and calls bound.
std::string clean_line(const std::vector<const CellRecord*>& cells) {
  // The weakest bound speaks for the group: the cell with the fewest calls.
  const CellRecord* fewest = cells.front();
  uint64_t most_calls = 0;
  auto calls_of = [](const CellRecord* r) { return r->dependability.classes.value_or(ClassCounts{}).calls; };
  for (const CellRecord* r : cells) {
    if (calls_of(r) < calls_of(fewest)) fewest = r;
    most_calls = std::max(most_calls, calls_of(r));
  }
  Figure s = figure(*fewest, &OverTrialsFigures::silent, 0);
  std::string calls = calls_of(fewest) == most_calls
                          ? grouped(most_calls)
                          : grouped(calls_of(fewest)) + "-" + grouped(most_calls);
  std::vector<std::string> conditions;
  std::map<std::string, std::vector<std::string>> rows;
  for (const CellRecord* r : cells) {
    std::string condition = condition_words(*r);
    if (!rows.count(condition)) conditions.push_back(condition);
    rows[condition].push_back(row_variant(*r));
  }
  std::string listed;
  for (const std::string& condition : conditions)
    listed += (listed.empty() ? "" : "; ") + condition + ": " + names(rows[condition]);
  std::string each = cells.size() == 1 ? "" : " each";
  return fmt::format(
      "Clean in {} ({} calls{}), nothing lost or run twice: {}. So few clean trials still allow an error in up to "
      "{:.0f}% of trials (Clopper-Pearson), and a rate up to {} per million calls if calls were independent "
      "(Wilson, over the fewest).",
      s.trials == 1 ? "its 1 trial" : fmt::format("all {}", trials_word(s.trials)), calls, each, listed,
      100 * s.cp_high, per_million(s.wilson_high));
}

std::string more_line(size_t more, const char* what) {
  return fmt::format("... and {} more {} (the tables below).", more, what);
}

}  // namespace

std::vector<std::string> verdict_lines(const std::vector<CellRecord>& records) {
  std::vector<const CellRecord*> measured, lost, priced, not_measured, with_failed_trials;
  size_t on_paths = 0;
  for (const CellRecord& r : records) {
    if (!r.is("dependability")) continue;
    if (!r.ok()) {
      not_measured.push_back(&r);
      continue;
    }
    if (on_path(r)) {  // a path of replicas: its own table
      ++on_paths;
      continue;
    }
    measured.push_back(&r);
    if (r.trials_failed && !r.trials_failed->empty()) with_failed_trials.push_back(&r);
  }
  std::vector<std::string> lines;
  if (measured.empty() && not_measured.empty() && !on_paths)
    return {"No dependability cell has a record: nothing to judge."};
  std::map<size_t, std::vector<const CellRecord*>> clean;  // by trials
  std::vector<size_t> clean_order;
  for (const CellRecord* r : measured) {
    ClassCounts c = r->dependability.classes.value_or(ClassCounts{});
    Figure s = figure(*r, &OverTrialsFigures::silent, c.silent());
    Figure d = figure(*r, &OverTrialsFigures::duplicate_calls, c.duplicate_calls);
    if (s.with || d.with) {
      lost.push_back(r);
    } else if (c.ran_but_told_failed()) {
      priced.push_back(r);
    } else {
      if (!clean.count(s.trials)) clean_order.push_back(s.trials);
      clean[s.trials].push_back(r);
    }
  }
  // The worst first: the most trials with an error, then the highest rate.
  std::stable_sort(lost.begin(), lost.end(), [](const CellRecord* a, const CellRecord* b) {
    Figure fa = figure(*a, &OverTrialsFigures::silent, 0), fb = figure(*b, &OverTrialsFigures::silent, 0);
    return std::make_pair(fa.with, fa.most) > std::make_pair(fb.with, fb.most);
  });
  // The dearest first.
  std::stable_sort(priced.begin(), priced.end(), [](const CellRecord* a, const CellRecord* b) {
    ClassCounts ca = a->dependability.classes.value_or(ClassCounts{});
    ClassCounts cb = b->dependability.classes.value_or(ClassCounts{});
    return static_cast<double>(ca.ran_but_told_failed()) / std::max<uint64_t>(1, ca.calls) >
           static_cast<double>(cb.ran_but_told_failed()) / std::max<uint64_t>(1, cb.calls);
  });
  if (!measured.empty() && lost.empty())
    lines.push_back(measured.size() == 1 ? "No call was lost or run twice in any trial of the 1 cell measured."
                                         : fmt::format("No call was lost or run twice in any trial of the {} cells "
                                                       "measured.", measured.size()));
  for (size_t i = 0; i < lost.size() && i < kMostCells; ++i) lines.push_back(lost_line(*lost[i]));
  if (lost.size() > kMostCells) lines.push_back(more_line(lost.size() - kMostCells, "cells with errors"));
  for (size_t i = 0; i < priced.size() && i < kMostCells; ++i) lines.push_back(priced_line(*priced[i], measured));
  if (priced.size() > kMostCells) lines.push_back(more_line(priced.size() - kMostCells, "cells at a price"));
  for (size_t i = 0; i < clean_order.size() && i < kMostCells; ++i) lines.push_back(clean_line(clean[clean_order[i]]));
  if (clean_order.size() > kMostCells)
    lines.push_back(more_line(clean_order.size() - kMostCells, "groups of clean cells"));
  if (on_paths) lines.push_back(fmt::format("{} cells on paths of replicas: the paths table.", on_paths));
  for (const CellRecord* r : with_failed_trials)
    lines.push_back(fmt::format("{}: {} of {} trials failed and are left out of its figures ({}).", cell_name(*r),
                                r->trials_failed->size(), r->trials.value_or(0), r->trials_failed->front().reason));
  if (!not_measured.empty()) {
    std::string which;
    for (size_t i = 0; i < not_measured.size() && i < kMostCells; ++i)
      which += (i ? "; " : "") + not_measured[i]->status + " " + cell_name(*not_measured[i]);
    if (not_measured.size() > kMostCells) which += fmt::format("; and {} more", not_measured.size() - kMostCells);
    lines.push_back(fmt::format("Not measured, {} of {} cells: {} (why: \"Cells not measured\" in report.txt).",
                                not_measured.size(), not_measured.size() + measured.size() + on_paths, which));
  }
  return lines;
}

std::string verdict_section(const std::vector<CellRecord>& records, const ReportOptions& options) {
  std::vector<std::string> lines = verdict_lines(records);
  std::string title = "Verdict, from this run's records (each figure: the tables that follow):";
  std::string out = title + "\n";
  if (options.markdown) {
    out = title + "\n\n";
    for (const std::string& l : lines) out += "- " + l + "\n";
    return out;
  }
  for (const std::string& l : lines) {
    std::istringstream in(wrapped(l, kWidth - 4));
    bool first = true;
    for (std::string part; std::getline(in, part); first = false) out += (first ? "  - " : "    ") + part + "\n";
  }
  return out;
}

}  // namespace rpclab::harness
