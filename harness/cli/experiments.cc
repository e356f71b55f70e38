#include "harness/run/experiment.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "harness/dependability/dependability_report.h"
#include "harness/dependability/dependability_summary.h"
#include "harness/dependability/dependability_trial.h"
#include "harness/dependability/dependability_plots.h"
#include "harness/kit/plot.h"
#include "harness/run/run_folder.h"
#include "harness/speed/speed_matrix.h"
#include "harness/speed/speed_report.h"
#include "harness/speed/speed_session.h"
#include "harness/speed/speed_summary.h"
#include "harness/kit/text_table.h"
#include "harness/dependability/trial_stats.h"

namespace rpclab::harness {
namespace {

std::string not_ok_words(const std::string& status, const std::string& reason) {
  return (status == "failed" ? "FAILED: " : "skipped: ") + reason;
}

std::string reason_words(const std::string& reason) { return reason.empty() ? "" : " [" + reason + "]"; }

// A trial (or a cell from before trials): its classes, onsets and load.
std::string classes_words(const std::optional<ClassCounts>& classes, std::optional<size_t> onsets,
                          std::optional<double> server_cpu_run_queue) {
  ClassCounts c = classes.value_or(ClassCounts{});
  std::string s = fmt::format("{} calls, silent {} (loss {}, dup {}), dup calls {}, indeterminate {}",
                              grouped(c.calls), grouped(c.silent()), grouped(c.silent_loss),
                              grouped(c.silent_duplicates), grouped(c.duplicate_calls), grouped(c.indeterminate));
  if (onsets) s += fmt::format(", onsets {}", *onsets);
  if (server_cpu_run_queue) s += fmt::format(", server CPU runnable {:.1f}", *server_cpu_run_queue);
  return s;
}

std::string dependability_trial_words(const TrialRecord& t) {
  if (!t.ok()) return not_ok_words(t.status, t.reason);
  const DependabilityTrial& d = t.dependability;
  std::optional<size_t> onsets = d.episodes ? std::optional<size_t>(d.episodes->onsets) : std::nullopt;
  std::optional<double> queue = d.load ? d.load->server_cpu_run_queue.value : std::nullopt;
  return classes_words(d.classes, onsets, queue) + reason_words(t.reason);
}

// A cell: its trials in a line.
std::string dependability_cell_words(const CellRecord& r) {
  if (!r.ok()) return not_ok_words(r.status, r.reason);
  const DependabilityCell& d = r.dependability;
  if (d.over_trials)
    return fmt::format("silent {}; dup calls {}{}", trials_headline(d.over_trials->silent),
                       trials_headline(d.over_trials->duplicate_calls), reason_words(r.reason));
  std::optional<double> queue = d.load ? d.load->server_cpu_run_queue.value : std::nullopt;
  return classes_words(d.classes, std::nullopt, queue) + reason_words(r.reason);
}

std::string latency_words(const LatencyFigures& l) {
  return fmt::format("p50 {:.1f} us, p99 {:.1f} us, {:.0f} calls/s", l.p50_us.value_or(0.0), l.p99_us.value_or(0.0),
                     l.calls_per_s.value_or(0.0));
}

std::string speed_trial_words(const TrialRecord& t) {
  return t.ok() ? latency_words(t.speed.latency) : not_ok_words(t.status, t.reason);
}

std::string speed_cell_words(const CellRecord& r) {
  return r.ok() ? latency_words(r.speed.latency) : not_ok_words(r.status, r.reason);
}

Experiment dependability() {
  Experiment e;
  e.name = "dependability";
  e.schedule = shuffled_trials;
  e.trial_runner = [](RunFolder&, CellEnvironment&) -> TrialRunner { return run_dependability_trial; };
  e.summarize = summarize_dependability;
  e.report = dependability_report;
  e.report_tables = dependability_report_tables();
  e.plots = dependability_plots;
  e.trial_words = dependability_trial_words;
  e.cell_words = dependability_cell_words;
  return e;
}

Experiment speed() {
  Experiment e;
  e.name = "speed";
  e.schedule = [](const std::vector<CellConfig>& cells, uint64_t) { return trial_rounds(cells, speed_group); };
  // The session keeps the run's links and servers; the runner owns it.
  e.trial_runner = [](RunFolder& folder, CellEnvironment& env) -> TrialRunner {
    auto session = std::make_shared<SpeedSession>(folder.dir(), env.latency_pinned);
    return [session](const CellConfig& cell, const TrialPlace& place, CellEnvironment& env, process::CommandLog& log,
                     TrialRecord& trial) { session->run_trial(cell, place, env, log, trial); };
  };
  e.summarize = summarize_speed;
  // Speed's tables are aligned text; in Markdown they go in a code block.
  e.report = [](const std::vector<CellRecord>& records, const ReportOptions& o) {
    std::string text;
    if (!o.tables.empty()) {
      text = speed_tables(records, o.data_dir, o.tables);
    } else {
      SpeedReport r = speed_report(records, o.data_dir);
      text = o.brief ? r.summary : r.full;
    }
    return o.markdown ? "```\n" + text + "```\n" : text;
  };
  e.report_tables = speed_report_tables();
  e.plots = speed_plots;
  e.trial_words = speed_trial_words;
  e.cell_words = speed_cell_words;
  return e;
}

}  // namespace

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> table = {dependability(), speed()};
  return table;
}

const Experiment& find_experiment(const std::string& name) {
  std::string known;
  for (const Experiment& e : experiments()) {
    if (e.name == name) return e;
    known += (known.empty() ? "" : ", ") + e.name;
  }
  throw std::invalid_argument("unknown experiment '" + name + "' (known: " + known + ")");
}

}  // namespace rpclab::harness
