#include "harness/dependability/dependability_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "harness/dependability/episodes.h"
#include "transport/settings_table.h"
#include "harness/run/trial_stats.h"
#include "harness/kit/stats.h"
#include "harness/run/experiment.h"
#include "harness/run/result_record.h"

namespace rpclab::harness {
namespace {

// A section every ok trial's record has; a trial without it cannot be
// summed (the cell fails, saying which).
template <typename Section>
const Section& section_of(const TrialRecord& t, const std::optional<Section>& s, const char* name) {
  if (!s) throw std::runtime_error(fmt::format("trial {} has no {}", t.trial, name));
  return *s;
}

OverTrialsFigures over_all_trials(const std::vector<TrialRecord>& trials) {
  std::vector<TrialCounts> counts;
  for (const TrialRecord& t : trials) counts.push_back(section_of(t, t.dependability.counts, "counts"));
  return {over_trials(counts, &ClientTrialCounts::silent), over_trials(counts, &ClientTrialCounts::duplicate_calls),
          over_trials(counts, &ClientTrialCounts::extra_executions)};
}

CellEpisodes episodes_over(const std::vector<TrialRecord>& trials) {
  std::vector<TrialEpisodes> each;
  CellEpisodes e;
  for (const TrialRecord& t : trials) {
    each.push_back(section_of(t, t.dependability.episodes, "episodes"));
    e.onsets_per_trial.push_back(each.back().onsets);
    e.first_onset_s_per_trial.push_back(each.back().first_onset_s);
  }
  e.rules = each.front().rules;
  e.note = onsets_note(each);
  return e;
}

// A figure of a trial's load, where it has one.
using LoadFigure = std::optional<double> (*)(const TrialLoad&);

// The mean over the trials that have the figure; null when none has it.
MaybeNull<double> mean_of(const std::vector<TrialRecord>& trials, LoadFigure figure) {
  double sum = 0;
  size_t n = 0;
  for (const TrialRecord& t : trials)
    if (std::optional<double> v = figure(*t.dependability.load)) {
      sum += *v;
      ++n;
    }
  return n ? MaybeNull<double>::of(sum / static_cast<double>(n)) : MaybeNull<double>::null();
}

MaybeNull<std::pair<double, double>> range_of(const std::vector<TrialRecord>& trials, LoadFigure figure) {
  std::vector<double> v;
  for (const TrialRecord& t : trials)
    if (std::optional<double> x = figure(*t.dependability.load)) v.push_back(*x);
  if (v.empty()) return MaybeNull<std::pair<double, double>>::null();
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return MaybeNull<std::pair<double, double>>::of({*lo, *hi});
}

std::optional<double> cpu_run_queue(const TrialLoad& l) { return l.server_cpu_run_queue.value; }
std::optional<double> run_queue_mean(const TrialLoad& l) { return l.run_queue_mean; }
std::optional<double> loadavg_1m(const TrialLoad& l) { return l.loadavg_1m; }

// The load over the trials: each trial measured its own window.
CellLoad load_over(const std::vector<TrialRecord>& trials) {
  for (const TrialRecord& t : trials) section_of(t, t.dependability.load, "load");
  const TrialLoad& first = *trials.front().dependability.load;
  double wait_s = 0, slices = 0;
  int samples = 0;
  for (const TrialRecord& t : trials) {
    const TrialLoad& l = *t.dependability.load;
    wait_s += l.server_wait_s.value_or(0.0);
    slices += static_cast<double>(l.server_timeslices.value_or(0));
    samples += l.samples.value_or(0);
  }
  CellLoad c;
  c.hogs = first.hogs;
  c.server_cpu_run_queue = mean_of(trials, cpu_run_queue);
  c.server_cpu_run_queue_range = range_of(trials, cpu_run_queue);
  c.server_cpu_method = MaybeNull<std::string>::of(first.server_cpu_method.value);
  c.server_wait_us_per_timeslice =
      slices > 0 ? MaybeNull<double>::of(wait_s * 1e6 / slices) : MaybeNull<double>::null();
  c.run_queue_mean = mean_of(trials, run_queue_mean);
  c.loadavg_1m = mean_of(trials, loadavg_1m);
  c.samples = samples;
  c.server_cpus = first.server_cpus.value_or(std::vector<int>{});
  c.client_cpus = first.client_cpus.value_or(std::vector<int>{});
  return c;
}

CellFaults faults_over(const std::vector<TrialRecord>& trials) {
  std::vector<TrialFaults> each;
  for (const TrialRecord& t : trials) each.push_back(section_of(t, t.dependability.faults, "faults"));
  return pooled_faults(each);
}

std::string truncated_note(const std::vector<TrialRecord>& trials) {
  size_t cut = std::count_if(trials.begin(), trials.end(), [](const TrialRecord& t) { return !t.reason.empty(); });
  return cut ? fmt::format("{} of {} trials reached the cell time limit ({})", cut, trials.size(),
                           trials.front().reason)
             : "";
}

// What the timed events did over the trials: how many occurrences each
// trial had, and every warning a phase gave (the trials keep the details).
EventsOverTrials events_over(const std::vector<TrialRecord>& trials) {
  EventsOverTrials e;
  for (const TrialRecord& t : trials) {
    e.occurrences_per_trial.push_back(t.dependability.events ? t.dependability.events->size() : 0);
    for (const std::string& w : t.dependability.warnings.value_or(std::vector<std::string>{}))
      e.warnings.push_back(fmt::format("trial {}: {}", t.trial, w));
  }
  return e;
}

// The causes over the trials: counts added, the captures' words listed
// once each (a trial without a capture says why), drops added.
MaybeNull<CausesRecord> causes_over(const std::vector<TrialRecord>& trials) {
  CausesRecord sum;
  Cascades cascades;
  std::set<std::string> captures;
  sum.capture_drops = MaybeNull<uint64_t>::null();  // no trial had a capture
  for (const TrialRecord& t : trials) {
    if (!t.dependability.causes) continue;
    const CausesRecord& c = *t.dependability.causes;
    sum.counts += c.counts;
    if (c.cascades) cascades += *c.cascades;
    captures.insert(c.capture);
    if (c.capture_drops.has_value())
      sum.capture_drops = MaybeNull<uint64_t>::of(sum.capture_drops.value_or(0) + *c.capture_drops);
  }
  if (captures.empty()) return MaybeNull<CausesRecord>::null();
  sum.capture = fmt::format("{}", fmt::join(captures, "; "));
  sum.cascades = cascades;
  return MaybeNull<CausesRecord>::of(sum);
}

// Where the trials ran (each trial's `topology_place`), each place once;
// null when no trial says (--server-host: its `hosts` say).
MaybeNull<std::string> places_over(const std::vector<TrialRecord>& trials) {
  std::set<std::string> places;
  for (const TrialRecord& t : trials)
    if (t.dependability.topology_place.has_value()) places.insert(*t.dependability.topology_place);
  if (places.empty()) return MaybeNull<std::string>::null();
  return MaybeNull<std::string>::of(fmt::format("{}", fmt::join(places, "; ")));
}

// Where the calls of a path's trials ran, added over the trials; none for
// a cell without a path.
std::optional<PathFigures> path_over(const std::vector<TrialRecord>& trials) {
  std::optional<PathFigures> sum;
  for (const TrialRecord& t : trials)
    if (t.dependability.path) {
      if (!sum) sum = PathFigures{};
      *sum += *t.dependability.path;
    }
  return sum;
}

}  // namespace

void add_classes(DependabilityCell& d, const ClassCounts& c) {
  d.classes = c;
  d.silent_per_million = proportion_per_million(c.silent(), c.calls);
  d.rates_per_million = ClassRates::of(c);
}

void summarize_dependability(const CellConfig& cell, const std::vector<TrialRecord>& trials,
                             const std::vector<CellRecord>&, CellRecord& record) {
  DependabilityCell& d = record.dependability;
  d.calls_planned = cell.total_calls() * static_cast<uint64_t>(std::max(1, cell.trials));
  for (const TransportSetting* s : top_level_settings())
    d.top_level_settings[std::string(s->name)] = setting_json(cell.settings, *s);
  d.retry_policy = cell.retry.name();
  d.at_most_once = cell.at_most_once;
  d.topology_place = places_over(trials);
  std::vector<TrialRecord> ok = ok_trials(trials);
  if (ok.empty()) return;
  ClassCounts classes;
  double client_wall_s = 0;
  for (const TrialRecord& t : ok) {
    classes += section_of(t, t.dependability.classes, "classes");
    client_wall_s += t.dependability.client_wall_s.value_or(0.0);
  }
  add_classes(d, classes);
  d.over_trials = over_all_trials(ok);
  d.causes = causes_over(ok);
  d.episodes = episodes_over(ok);
  d.load = load_over(ok);
  d.faults = faults_over(ok);
  d.path = path_over(ok);
  d.client_wall_s = client_wall_s;
  d.calls_per_s = client_wall_s > 0 ? static_cast<double>(classes.calls) / client_wall_s : 0;
  record.settings = ok.front().settings.value_or(nlohmann::json::object());
  if (!cell.faults.events.empty()) d.events = events_over(ok);
  if (std::string note = truncated_note(ok); !note.empty())
    mark(record, "ok", record.reason.empty() ? note : record.reason + "; " + note);
}

}  // namespace rpclab::harness
