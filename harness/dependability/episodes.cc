#include "harness/dependability/episodes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

// One client's errors from an onset to the clean stretch that ends them.
struct Run {
  uint32_t client_id = 0;
  double onset_s = 0;
  double last_s = 0;
  uint64_t calls = 0;
  uint64_t silent = 0;
  uint64_t extra_executions = 0;
};

std::vector<Run> client_runs(std::vector<ErrorCall>& errors, uint64_t clean_calls) {
  std::sort(errors.begin(), errors.end(), [](const ErrorCall& a, const ErrorCall& b) {
    return a.client_id != b.client_id ? a.client_id < b.client_id : a.index < b.index;
  });
  std::vector<Run> runs;
  for (size_t i = 0; i < errors.size(); ++i) {
    const ErrorCall& e = errors[i];
    bool same_client = i > 0 && errors[i - 1].client_id == e.client_id;
    uint64_t clean_between = same_client && e.index > errors[i - 1].index ? e.index - errors[i - 1].index - 1 : 0;
    if (!same_client || clean_between >= clean_calls) runs.push_back({e.client_id, e.end_s, e.end_s});
    Run& run = runs.back();
    run.last_s = std::max(run.last_s, e.end_s);
    ++run.calls;
    run.silent += e.silent ? 1 : 0;
    run.extra_executions += e.extra_executions;
  }
  return runs;
}

// An onset early in a trial is ms, not "0.0 s".
std::string seconds_text(double s) { return s < 1 ? fmt::format("{:.1f} ms", s * 1e3) : fmt::format("{:.1f} s", s); }

}  // namespace

Episodes find_episodes(std::vector<ErrorCall> errors, const EpisodeRules& rules) {
  std::vector<Run> runs = client_runs(errors, rules.clean_calls);
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
    return a.onset_s != b.onset_s ? a.onset_s < b.onset_s : a.client_id < b.client_id;
  });
  Episodes found;
  found.rules = rules;
  std::vector<uint32_t> clients;  // of the episode being built
  for (const Run& run : runs) {
    // Anchored on the episode's first onset, not chained from onset to onset,
    // so a stream of independent onsets cannot merge into one long episode.
    if (found.list.empty() || run.onset_s - found.list.back().onset_s > rules.window_s) {
      found.list.push_back({run.onset_s, run.last_s});
      clients.clear();
    }
    Episode& e = found.list.back();
    e.onset_spread_s = run.onset_s - e.onset_s;
    e.last_error_s = std::max(e.last_error_s, run.last_s);
    if (std::find(clients.begin(), clients.end(), run.client_id) == clients.end()) {
      clients.push_back(run.client_id);
      ++e.clients;
    }
    e.error_calls += run.calls;
    e.silent += run.silent;
    e.extra_executions += run.extra_executions;
  }
  return found;
}

uint64_t Episodes::error_calls() const {
  uint64_t n = 0;
  for (const Episode& e : list) n += e.error_calls;
  return n;
}

std::optional<double> Episodes::first_onset_s() const {
  if (list.empty()) return std::nullopt;
  return list.front().onset_s;
}

double Episodes::errors_per_onset() const {
  return list.empty() ? 0 : static_cast<double>(error_calls()) / static_cast<double>(list.size());
}

TrialEpisodes episodes_record(const Episodes& e, size_t listed) {
  TrialEpisodes r{e.rules, e.onsets(), e.error_calls(), e.errors_per_onset(), e.first_onset_s(), {}};
  r.listed.assign(e.list.begin(), e.list.begin() + static_cast<std::ptrdiff_t>(std::min(listed, e.list.size())));
  return r;
}

std::string onsets_note(const std::vector<Episodes>& trials) {
  std::vector<TrialEpisodes> list;
  for (const Episodes& e : trials) list.push_back(episodes_record(e, 0));
  return onsets_note(list);
}

std::string onsets_note(const std::vector<TrialEpisodes>& trials) {
  std::vector<size_t> onsets;
  std::vector<double> firsts;
  uint64_t errors = 0, total_onsets = 0;
  for (const TrialEpisodes& t : trials) {
    onsets.push_back(t.onsets);
    total_onsets += t.onsets;
    errors += t.error_calls;
    if (t.first_onset_s) firsts.push_back(*t.first_onset_s);
  }
  if (total_onsets == 0) return "";
  auto [lo, hi] = std::minmax_element(firsts.begin(), firsts.end());
  std::string first = *lo == *hi ? seconds_text(*lo) : seconds_text(*lo) + "-" + seconds_text(*hi);
  double per_onset = static_cast<double>(errors) / static_cast<double>(total_onsets);
  return fmt::format("onsets per trial {}; {} errors per onset; first onset {} after the clients started",
                     fmt::join(onsets, ", "), grouped(static_cast<uint64_t>(std::llround(per_onset))), first);
}

}  // namespace rpclab::harness
