#include "harness/dependability/cell_events.h"

#include "harness/record/faults.h"
#include "harness/run/cell_failure.h"

namespace rpclab::harness {

CellEvents::CellEvents(const netem::FaultSpec& spec, std::optional<int64_t> duration_ms, netem::FaultBackend* link,
                       netem::ServerControl& server, process::CommandLog& log) {
  if (spec.events.empty()) return;
  try {
    runner_.emplace(spec, netem::EventTargets{link, &server}, log);
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

void CellEvents::add_to(nlohmann::json& trial) const {
  if (!runner_) return;
  trial["events"] = runner_->record();
  std::vector<std::string> warnings = event_warnings(runner_->record());
  if (!warnings.empty()) trial["warnings"] = warnings;
}

std::vector<std::string> event_warnings(const nlohmann::json& events) {
  std::vector<std::string> out;
  for (const nlohmann::json& e : events)
    for (const std::string& w : event_occurrence(e).warnings) out.push_back(w);
  return out;
}

}  // namespace rpclab::harness
