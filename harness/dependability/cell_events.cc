#include "harness/dependability/cell_events.h"

#include "harness/record/faults.h"
#include "harness/run/cell_failure.h"
#include "netem/spec/spec_error.h"

namespace rpclab::harness {

CellEvents::CellEvents(const netem::FaultSpec& spec, std::optional<int64_t> duration_ms, netem::FaultBackend* link,
                       netem::ServerControl* server, process::CommandLog& log) {
  if (spec.events.empty()) return;
  try {
    runner_.emplace(spec, netem::EventTargets{link, server}, log);
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

void CellEvents::add_to(TrialRecord& trial) const {
  if (!runner_) return;
  std::vector<EventOccurrence> events;
  std::vector<std::string> warnings;
  for (const nlohmann::json& entry : runner_->record()) {
    events.push_back(event_occurrence(entry));
    warnings.insert(warnings.end(), events.back().warnings.begin(), events.back().warnings.end());
  }
  trial.dependability.events = events;
  if (!warnings.empty()) trial.dependability.warnings = warnings;
}

std::vector<std::string> event_warnings(const nlohmann::json& events) {
  std::vector<std::string> out;
  for (const nlohmann::json& e : events)
    for (const std::string& w : event_occurrence(e).warnings) out.push_back(w);
  return out;
}

}  // namespace rpclab::harness
