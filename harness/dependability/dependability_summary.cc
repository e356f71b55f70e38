#include "harness/dependability/dependability_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "harness/causes/attribution.h"
#include "harness/dependability/episodes.h"
#include "transport/settings_table.h"
#include "harness/run/experiment.h"
#include "harness/run/result_record.h"
#include "harness/kit/stats.h"
#include "harness/dependability/trial_stats.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

json over_all_trials(const std::vector<json>& trials) {
  std::vector<TrialCounts> counts;
  for (const json& t : trials) counts.push_back(TrialCounts::from_json(t.at("counts")));
  return {{"silent", over_trials(counts, &ClientTrialCounts::silent).to_json()},
          {"duplicate_calls", over_trials(counts, &ClientTrialCounts::duplicate_calls).to_json()},
          {"extra_executions", over_trials(counts, &ClientTrialCounts::extra_executions).to_json()}};
}

json episodes_over(const std::vector<json>& trials) {
  std::vector<TrialOnsets> onsets;
  json per_trial = json::array(), firsts = json::array();
  for (const json& t : trials) {
    onsets.push_back(TrialOnsets::from_json(t.at("episodes")));
    per_trial.push_back(onsets.back().onsets);
    firsts.push_back(onsets.back().first_onset_s ? json(*onsets.back().first_onset_s) : json(nullptr));
  }
  return {{"rules", trials.front().at("episodes").at("rules")},
          {"onsets_per_trial", per_trial},
          {"first_onset_s_per_trial", firsts},
          {"note", onsets_note(onsets)}};
}

// Means over the trials that have the figure; null when none has it.
json mean_of(const std::vector<json>& trials, const char* key) {
  double sum = 0;
  size_t n = 0;
  for (const json& t : trials)
    if (t.at("load").contains(key) && t.at("load").at(key).is_number()) {
      sum += t.at("load").at(key).get<double>();
      ++n;
    }
  return n ? json(sum / static_cast<double>(n)) : json(nullptr);
}

json range_of(const std::vector<json>& trials, const char* key) {
  std::vector<double> v;
  for (const json& t : trials)
    if (t.at("load").contains(key) && t.at("load").at(key).is_number()) v.push_back(t.at("load").at(key).get<double>());
  if (v.empty()) return nullptr;
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {*lo, *hi};
}

// The load over the trials: each trial measured its own window.
json load_over(const std::vector<json>& trials) {
  const json& first = trials.front().at("load");
  double wait_s = 0, slices = 0;
  int samples = 0;
  for (const json& t : trials) {
    wait_s += t.at("load").value("server_wait_s", 0.0);
    slices += t.at("load").value("server_timeslices", 0.0);
    samples += t.at("load").value("samples", 0);
  }
  return {{"hogs", first.value("hogs", 0)},
          {"server_cpu_run_queue", mean_of(trials, "server_cpu_run_queue")},
          {"server_cpu_run_queue_range", range_of(trials, "server_cpu_run_queue")},
          {"server_cpu_method", first.value("server_cpu_method", json(nullptr))},
          {"server_wait_us_per_timeslice", slices > 0 ? json(wait_s * 1e6 / slices) : json(nullptr)},
          {"run_queue_mean", mean_of(trials, "run_queue_mean")},
          {"loadavg_1m", mean_of(trials, "loadavg_1m")},
          {"samples", samples},
          {"server_cpus", first.value("server_cpus", json::array())},
          {"client_cpus", first.value("client_cpus", json::array())}};
}

// Measured loss and duplication pooled over the trials, exactly: each
// trial's percentages and packets offered give back its drops and copies.
json faults_over(const std::vector<json>& trials) {
  json f = trials.front().at("faults");
  double offered = 0, carried = 0, dropped = 0, duplicated = 0;
  json per_trial = json::array();
  for (const json& t : trials) {
    const json& m = t.at("faults");
    if (!m.value("measured_loss_pct", json()).is_number()) continue;
    double o = m.value("packets_offered", 0.0), dup = m.at("measured_dup_pct").get<double>() * o / 100;
    offered += o;
    duplicated += dup;
    carried += o + dup;
    dropped += m.at("measured_loss_pct").get<double>() * (o + dup) / 100;
    per_trial.push_back({m.at("measured_loss_pct"), m.at("measured_dup_pct")});
  }
  for (const char* k : {"counters_before", "counters_after"}) f.erase(k);  // each trial keeps its own
  if (per_trial.empty()) return f;
  f["packets_offered"] = offered;
  f["measured_loss_pct"] = carried > 0 ? 100 * dropped / carried : 0.0;
  f["measured_dup_pct"] = offered > 0 ? 100 * duplicated / offered : 0.0;
  f["measured_per_trial"] = per_trial;
  return f;
}

std::string truncated_note(const std::vector<json>& trials) {
  size_t cut = std::count_if(trials.begin(), trials.end(),
                             [](const json& t) { return !t.value("reason", "").empty(); });
  return cut ? fmt::format("{} of {} trials reached the cell time limit ({})", cut, trials.size(),
                           trials.front().value("reason", ""))
             : "";
}

// What the timed events did over the trials: how many occurrences each
// trial had, and every warning a phase gave (the trials keep the details).
json events_over(const std::vector<json>& trials) {
  json per_trial = json::array(), warnings = json::array();
  for (const json& t : trials) {
    per_trial.push_back(t.value("events", json::array()).size());
    for (const json& w : t.value("warnings", json::array()))
      warnings.push_back(fmt::format("trial {}: {}", t.value("trial", 0), w.get<std::string>()));
  }
  return {{"occurrences_per_trial", per_trial}, {"warnings", warnings}};
}

// The causes over the trials: counts added, the captures' words listed
// once each (a trial without a capture says why), drops added.
json causes_over(const std::vector<json>& trials) {
  CauseCounts sum;
  Cascades cascades;
  std::set<std::string> captures;
  json drops = nullptr;  // null: no trial had a capture
  for (const json& t : trials) {
    if (!t.contains("causes")) continue;
    const json& c = t.at("causes");
    sum += CauseCounts::from_json(c);
    cascades += Cascades::from_json(c);
    captures.insert(c.value("capture", ""));
    if (c.value("capture_drops", json()).is_number())
      drops = (drops.is_null() ? 0 : drops.get<uint64_t>()) + c.at("capture_drops").get<uint64_t>();
  }
  if (captures.empty()) return nullptr;
  json j = sum.to_json();
  j["capture"] = fmt::format("{}", fmt::join(captures, "; "));
  j["capture_drops"] = drops;
  cascades.add_to(j);
  return j;
}

// Where the trials ran (each trial's `topology_place`), each place once;
// null when no trial says (--server-host: its `hosts` say).
json places_over(const std::vector<json>& trials) {
  std::set<std::string> places;
  for (const json& t : trials)
    if (t.value("topology_place", json()).is_string()) places.insert(t.at("topology_place").get<std::string>());
  if (places.empty()) return nullptr;
  return fmt::format("{}", fmt::join(places, "; "));
}

}  // namespace

void add_classes(json& record, const ClassCounts& c) {
  record["calls"] = c.calls;
  record["classes"] = c.to_json();
  record["levy_mismatches"] = c.levy_mismatches;
  // Calls that ... are proportions of the calls; mismatches and extra
  // executions are counts that can exceed them (stats.h).
  auto proportion = [&](uint64_t k) { return proportion_per_million(k, c.calls).to_json(); };
  auto count = [&](uint64_t k) { return count_per_million(k, c.calls).to_json(); };
  record["silent_per_million"] = proportion(c.silent());
  record["rates_per_million"] = {{"silent_loss", proportion(c.silent_loss)},
                                 {"silent_duplicates", proportion(c.silent_duplicates)},
                                 {"duplicate_calls", proportion(c.duplicate_calls)},
                                 {"indeterminate", proportion(c.indeterminate)},
                                 {"levy_mismatches", count(c.levy_mismatches)},
                                 {"extra_executions", count(c.extra_executions)}};
}

void summarize_dependability(const CellConfig& cell, const std::vector<json>& trials, const std::vector<json>&,
                             json& record) {
  record["calls_planned"] = cell.total_calls() * static_cast<uint64_t>(std::max(1, cell.trials));
  // The settings the dependability matrix varied before settings were
  // rows (drc, retry_timeout_ms, drain_stale_replies) are also at the
  // record's top level, where readers of results.jsonl have them
  // (docs/results-format.md); a newer setting is in the cell only.
  for (const TransportSetting* s : all_settings())
    if (s->in_every_cell && (s->matrices & kDependabilityMatrix))
      record[std::string(s->name)] = setting_json(cell.settings, *s);
  record["retry_policy"] = cell.retry.name();
  record["at_most_once"] = cell.at_most_once;
  record["topology_place"] = places_over(trials);
  std::vector<json> ok = ok_trials(trials);
  if (ok.empty()) return;
  ClassCounts classes;
  double client_wall_s = 0;
  for (const json& t : ok) {
    classes += ClassCounts::from_record(t);
    client_wall_s += t.value("client_wall_s", 0.0);
  }
  add_classes(record, classes);
  record["over_trials"] = over_all_trials(ok);
  record["causes"] = causes_over(ok);
  record["episodes"] = episodes_over(ok);
  record["load"] = load_over(ok);
  record["faults"] = faults_over(ok);
  record["client_wall_s"] = client_wall_s;
  record["calls_per_s"] = client_wall_s > 0 ? static_cast<double>(classes.calls) / client_wall_s : 0;
  record["settings"] = ok.front().value("settings", json::object());
  if (!cell.faults.events.empty()) record["events"] = events_over(ok);
  if (std::string note = truncated_note(ok); !note.empty()) {
    std::string reason = record.value("reason", "");
    mark(record, "ok", reason.empty() ? note : reason + "; " + note);
  }
}

}  // namespace rpclab::harness
