// The fault backend's timed hook: applies a spec's events when they are
// due, from the caller's own wait loop, and records what each did.
//
// The caller (the harness, a test) calls poll() from the thread that owns
// the cell's processes, as often as it likes (its wait loop runs every few
// ms), and finish() when the clients are done. Nothing here starts a thread:
// a server restarted from a short-lived thread would die with it
// (PR_SET_PDEATHSIG follows the thread that forked; docs/architecture.md,
// "Nothing outlives the run").
#pragma once

#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

#include "netem/events/event_schedule.h"
#include "netem/events/event_targets.h"
#include "netem/spec/fault_spec.h"
#include "process/command_log.h"

namespace rpclab::netem {

class EventRunner {
 public:
  using Clock = std::chrono::steady_clock;

  // Throws SpecError when an event's target is missing (a link event
  // without a backend, a server event without a ServerControl).
  EventRunner(const FaultSpec& spec, EventTargets targets, process::CommandLog& log);

  void start(Clock::time_point clients_start);
  // Starts no occurrence planned at or after `horizon` from the clients'
  // start: the trial lasts that long, and a client still finishing its
  // last call is not struck again.
  void stop_starting_at(std::chrono::milliseconds horizon) { scheduler_.stop_starting_at(horizon); }
  // Applies every action due by `now`, in planned order. Returns when the
  // next one is due (nullopt: none left). An action that fails is recorded
  // with its error and the exception is rethrown: the cell has failed.
  std::optional<Clock::time_point> poll(Clock::time_point now = Clock::now());
  // Ends what is still in force (a partition up, a server stopped or down)
  // so the cell's results can be read; recorded with "at_end": true.
  void finish(Clock::time_point now = Clock::now());

  // One entry per occurrence: kind, occurrence, planned and actual start
  // and end (ms from the clients' start), and what each phase did.
  const nlohmann::json& record() const { return record_; }

  // After finish(): the planned occurrences that never started
  // (EventScheduler::unstarted), each with its event's kind; and when the
  // clients were done, in ms from their start.
  struct Unstarted {
    EventScheduler::Unstarted when;
    std::string kind;
  };
  std::vector<Unstarted> unstarted() const;
  std::optional<double> finished_ms() const { return finished_ms_; }

 private:
  void run(const EventAction& action, Clock::time_point now, bool at_end);
  nlohmann::json& entry(const EventAction& action);

  std::vector<FaultEvent> events_;
  EventScheduler scheduler_;
  EventTargets targets_;
  process::CommandLog& log_;
  Clock::time_point start_{};
  bool started_ = false;
  std::optional<double> finished_ms_;
  nlohmann::json record_ = nlohmann::json::array();
};

}  // namespace rpclab::netem
