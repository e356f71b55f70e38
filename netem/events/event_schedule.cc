#include "netem/events/event_schedule.h"

namespace rpclab::netem {

namespace {

// splitmix64: a fixed, portable mix, so a seed means the same plan on every
// build (std::uniform_int_distribution is not the same everywhere).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

EventScheduler::EventScheduler(std::vector<FaultEvent> events, uint64_t seed)
    : events_(std::move(events)), seed_(seed), state_(events_.size()) {}

std::chrono::milliseconds EventScheduler::planned_start(size_t i, uint64_t k) const {
  const FaultEvent& e = events_[i];
  int64_t start = e.at_ms + static_cast<int64_t>(k) * e.every_ms.value_or(0);
  if (e.jitter_ms > 0)
    start += static_cast<int64_t>(mix(seed_ ^ mix(i) ^ mix(k + 0x5eed)) % static_cast<uint64_t>(e.jitter_ms + 1));
  return std::chrono::milliseconds(start);
}

std::optional<EventAction> EventScheduler::pending(size_t i) const {
  const State& s = state_[i];
  if (s.done) return std::nullopt;
  EventAction a{i, s.occurrence, s.started ? EventPhase::kEnd : EventPhase::kStart, planned_start(i, s.occurrence)};
  if (!s.started && horizon_ && a.planned >= *horizon_) return std::nullopt;  // past the trial's end
  if (s.started) a.planned += std::chrono::milliseconds(events_[i].for_ms);
  return a;
}

void EventScheduler::advance(size_t i) {
  State& s = state_[i];
  const FaultEvent& e = events_[i];
  bool instant = e.for_ms == 0;  // a one-shot reset has a start and no end
  if (!s.started && !instant) {
    s.started = true;
    return;
  }
  s.started = false;
  ++s.occurrence;
  if (!e.every_ms) s.done = true;
}

std::vector<EventAction> EventScheduler::due(std::chrono::nanoseconds elapsed) {
  std::vector<EventAction> out;
  for (;;) {
    std::optional<EventAction> first;
    for (size_t i = 0; i < events_.size(); ++i) {
      auto a = pending(i);
      if (a && (!first || a->planned < first->planned)) first = a;
    }
    if (!first || first->planned > elapsed) return out;
    out.push_back(*first);
    advance(first->event);
  }
}

std::optional<std::chrono::milliseconds> EventScheduler::next() const {
  std::optional<std::chrono::milliseconds> t;
  for (size_t i = 0; i < events_.size(); ++i) {
    auto a = pending(i);
    if (a && (!t || a->planned < *t)) t = a->planned;
  }
  return t;
}

std::vector<EventScheduler::Unstarted> EventScheduler::unstarted() const {
  std::vector<Unstarted> out;
  for (size_t i = 0; i < events_.size(); ++i) {
    uint64_t k = state_[i].occurrence + (state_[i].started ? 1 : 0);  // the first never started
    if (k > 0 && !events_[i].every_ms) continue;                    // its only occurrence happened
    Unstarted u{i, k, 0, planned_start(i, k)};
    if (!horizon_) {
      u.count = k == 0 ? 1 : 0;
    } else {
      // every_ms > 0 (validate_events), so this ends at the horizon
      for (uint64_t j = k; planned_start(i, j) < *horizon_; ++j) {
        ++u.count;
        if (!events_[i].every_ms) break;
      }
    }
    if (u.count > 0) out.push_back(u);
  }
  return out;
}

std::vector<EventAction> EventScheduler::finish() {
  std::vector<EventAction> out;
  for (size_t i = 0; i < events_.size(); ++i) {
    if (state_[i].started) out.push_back(*pending(i));
    state_[i].done = true;
  }
  return out;
}

}  // namespace rpclab::netem
