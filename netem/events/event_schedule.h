// When each fault event starts and ends: a pure plan over time offsets
// from the clients' start, with no clock of its own, so a test can drive it
// with any times it likes. The caller's wait loop asks what is due.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "netem/spec/fault_event.h"

namespace rpclab::netem {

struct EventAction {
  size_t event = 0;         // index into the events given
  uint64_t occurrence = 0;  // 0 for the first, 1 for the next repetition, ...
  EventPhase phase = EventPhase::kStart;
  std::chrono::milliseconds planned{0};  // from the clients' start, jitter included
};

class EventScheduler {
 public:
  // `seed` draws each occurrence's start jitter: the same seed gives the
  // same plan. The events must be valid (validate_events).
  EventScheduler(std::vector<FaultEvent> events, uint64_t seed);

  // Every action planned at or before `elapsed` and not handed out yet, in
  // planned order (a start before its end). Each action is handed out once.
  std::vector<EventAction> due(std::chrono::nanoseconds elapsed);
  // When the next action is planned; nullopt when none is left.
  std::optional<std::chrono::milliseconds> next() const;
  // The ends of occurrences started and not yet ended, marked as handed
  // out: what a cell that stops now must undo.
  std::vector<EventAction> finish();

  // No occurrence planned to start at or after `horizon` starts (a trial
  // that lasts a fixed time); one already started still ends as planned.
  void stop_starting_at(std::chrono::milliseconds horizon) { horizon_ = horizon; }

  // Occurrence k of event i starts here (at + k * every + its jitter draw).
  std::chrono::milliseconds planned_start(size_t i, uint64_t k) const;

  // The occurrences of one event that were planned and never started
  // (the caller stopped asking first: its clients were done).
  struct Unstarted {
    size_t event = 0;
    uint64_t first = 0;  // the first of them; 0: the event never happened
    uint64_t count = 0;
    std::chrono::milliseconds planned{0};  // when the first of them was planned
  };
  // Planned: each occurrence that starts before the horizon; with none set,
  // only an event's first (a repeating event has no last one).
  std::vector<Unstarted> unstarted() const;

 private:
  struct State {
    uint64_t occurrence = 0;
    bool started = false;  // the current occurrence's start was handed out
    bool done = false;     // no more actions for this event
  };
  std::optional<EventAction> pending(size_t i) const;  // its next action
  void advance(size_t i);

  std::vector<FaultEvent> events_;
  uint64_t seed_;
  std::vector<State> state_;
  std::optional<std::chrono::milliseconds> horizon_;
};

}  // namespace rpclab::netem
