#include "harness/placement/cell_events.h"

#include <fmt/format.h>

#include "harness/record/faults.h"
#include "harness/run/cell_failure.h"
#include "netem/spec/spec_error.h"

namespace rpclab::harness {

CellEvents::CellEvents(const netem::FaultSpec& spec, std::optional<int64_t> duration_ms, netem::FaultBackend* link,
                       std::vector<netem::ServerControl*> servers, process::CommandLog& log) {
  if (spec.events.empty()) return;
  try {
    runner_.emplace(spec, netem::EventTargets{link, std::move(servers)}, log);
  } catch (const netem::SpecError& e) {
    throw CellFailure(e.what());
  }
  if (duration_ms) runner_->stop_starting_at(std::chrono::milliseconds(*duration_ms));
}

void CellEvents::poll() {
  if (runner_) runner_->poll();
}

void CellEvents::finish() {
  if (runner_) runner_->finish();
}

std::vector<EventOccurrence> CellEvents::occurrences() const {
  std::vector<EventOccurrence> events;
  if (runner_)
    for (const nlohmann::json& entry : runner_->record()) events.push_back(event_occurrence(entry));
  return events;
}

std::vector<std::string> CellEvents::warnings() const {
  std::vector<std::string> warnings;
  if (!runner_) return warnings;
  for (const EventOccurrence& e : occurrences()) warnings.insert(warnings.end(), e.warnings.begin(), e.warnings.end());
  for (const netem::EventRunner::Unstarted& u : runner_->unstarted())
    if (u.when.first > 0)
      warnings.push_back(fmt::format("{}: {} occurrence(s) from {} ms on never started: the calls were done at {} ms",
                                     u.kind, u.when.count, u.when.planned.count(),
                                     runner_->finished_ms().value_or(0)));
  return warnings;
}

void CellEvents::add_to(TrialRecord& trial) const {
  if (!runner_) return;
  trial.dependability.events = occurrences();
  std::vector<std::string> w = warnings();
  if (!w.empty()) trial.dependability.warnings = w;
}

std::string CellEvents::not_met() const {
  if (!runner_) return "";
  std::string missed;
  for (const netem::EventRunner::Unstarted& u : runner_->unstarted())
    if (u.when.first == 0)
      missed += fmt::format("{}{} (planned at {} ms)", missed.empty() ? "" : ", ", u.kind, u.when.planned.count());
  if (missed.empty()) return "";
  return fmt::format("not a measurement: the calls were done {} ms after they started, before these events ever "
                     "happened: {}. Give more calls per trial (--fault-calls), or none so the trial lasts its "
                     "duration",
                     runner_->finished_ms().value_or(0), missed);
}

std::vector<std::string> event_warnings(const nlohmann::json& events) {
  std::vector<std::string> out;
  for (const nlohmann::json& e : events)
    for (const std::string& w : event_occurrence(e).warnings) out.push_back(w);
  return out;
}

}  // namespace rpclab::harness
