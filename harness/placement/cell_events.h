// A trial's timed events (the fault spec's `events`), run around its
// clients by netem::EventRunner: link events with the trial's fault
// backend, server events through its ServerUnderTest. What they did goes
// into the trial's record. Used by the dependability trial and the NFS
// cell (harness/nfs/nfs_cell.cc) alike.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/trial_record.h"
#include "netem/events/event_runner.h"

namespace rpclab::harness {

class CellEvents {
 public:
  // Idle when the spec has no events. Throws CellFailure when an event
  // lacks its target (a link event on a trial without a fault backend, a
  // server event where nothing can act on the server).
  // With `duration_ms`, no occurrence starts at or after it.
  // `servers`: replica K is element K-1 (TrialServer::controls()).
  CellEvents(const netem::FaultSpec& spec, std::optional<int64_t> duration_ms, netem::FaultBackend* link,
             std::vector<netem::ServerControl*> servers, process::CommandLog& log);

  // From the clients' wait loop; the first call is the clients' start.
  void poll();
  // The clients are done: ends what is still in force (a partition up, the
  // server down or stopped), so the results can be read.
  void finish();
  // `events`: one entry per occurrence (results-format.md, "Timed
  // events"); `warnings`: what a phase did not manage and said so (ss -K
  // that closed nothing). Also after a failure, for the failed trial.
  // Occurrences planned within the trial that did not start before the
  // clients were done (their calls ran out first) are warnings too.
  void add_to(TrialRecord& trial) const;
  // The same for an experiment with its own section (the NFS trial's):
  // each occurrence as the record keeps it, and the warnings add_to writes.
  std::vector<EventOccurrence> occurrences() const;
  std::vector<std::string> warnings() const;
  // After finish(): why the trial is not a measurement, when an event never
  // happened while the calls ran (names each, and the calls' span against
  // its planned start); empty when every event happened at least once.
  std::string not_met() const;

 private:
  std::optional<netem::EventRunner> runner_;
};

// The `warning` of every phase in an EventRunner record, each with the
// event and phase it came from.
std::vector<std::string> event_warnings(const nlohmann::json& events);

}  // namespace rpclab::harness
