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

using nlohmann::json;

std::string not_ok_words(const json& r) {
  return (r.value("status", "") == "failed" ? "FAILED: " : "skipped: ") + r.value("reason", "");
}

// A cell: its trials in a line; a trial: its classes, onsets and load.
std::string dependability_words(const json& r) {
  if (r.value("status", "") != "ok") return not_ok_words(r);
  std::string reason = r.value("reason", "").empty() ? "" : " [" + r.value("reason", "") + "]";
  if (r.contains("over_trials"))
    return fmt::format("silent {}; dup calls {}{}", trials_headline(OverTrials::from_json(r["over_trials"]["silent"])),
                       trials_headline(OverTrials::from_json(r["over_trials"]["duplicate_calls"])), reason);
  const json& c = r.at("classes");
  auto n = [&](const char* k) { return c.value(k, uint64_t{0}); };
  std::string s = fmt::format("{} calls, silent {} (loss {}, dup {}), dup calls {}, indeterminate {}",
                              grouped(r.value("calls", uint64_t{0})), grouped(n("silent_loss") + n("silent_duplicates")),
                              grouped(n("silent_loss")), grouped(n("silent_duplicates")), grouped(n("duplicate_calls")),
                              grouped(n("indeterminate")));
  if (r.contains("episodes")) s += fmt::format(", onsets {}", r["episodes"].value("onsets", 0));
  const json& q = r.value("load", json::object()).value("server_cpu_run_queue", json());
  if (q.is_number()) s += fmt::format(", server CPU runnable {:.1f}", q.get<double>());
  return s + reason;
}

std::string speed_words(const json& r) {
  if (r.value("status", "") != "ok") return not_ok_words(r);
  return fmt::format("p50 {:.1f} us, p99 {:.1f} us, {:.0f} calls/s", r.value("p50_us", 0.0), r.value("p99_us", 0.0),
                     r.value("calls_per_s", 0.0));
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
  e.outcome_words = dependability_words;
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
                     json& trial) { session->run_trial(cell, place, env, log, trial); };
  };
  e.summarize = summarize_speed;
  // Speed's tables are aligned text; in Markdown they go in a code block.
  e.report = [](const std::vector<json>& records, const ReportOptions& o) {
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
  e.outcome_words = speed_words;
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
