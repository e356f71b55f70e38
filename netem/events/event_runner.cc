#include "netem/events/event_runner.h"

#include <exception>

#include <fmt/format.h>

#include "netem/faults/fault_backend.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {

namespace {

double ms_between(EventRunner::Clock::time_point from, EventRunner::Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

double tenth(double v) { return static_cast<double>(static_cast<int64_t>(v * 10 + (v < 0 ? -0.5 : 0.5))) / 10; }

void check_target(const FaultEvent& e, const EventTargets& t) {
  if (e.kind->target != EventTarget::kLink) {
    if (t.servers.empty())
      throw SpecError(fmt::format("event {} acts on a server, and nothing here owns one", e.kind->name));
    if (!t.server(e.replica))
      throw SpecError(fmt::format("event {} strikes replica {}, and this trial has {} server(s)", e.kind->name,
                                  e.replica, t.servers.size()));
    return;
  }
  if (!t.link)
    throw SpecError(fmt::format("event {} acts on the link: it needs a fault backend (two-host topology, root)",
                                e.kind->name));
  if (!(backend_bit(t.link->kind()) & e.kind->backends))
    throw SpecError(fmt::format("event {}: the {} backend cannot apply it", e.kind->name, backend_name(t.link->kind())));
}

}  // namespace

EventRunner::EventRunner(const FaultSpec& spec, EventTargets targets, process::CommandLog& log)
    : events_(spec.events), scheduler_(spec.events, spec.seed.value_or(0)), targets_(targets), log_(log) {
  for (const FaultEvent& e : events_) check_target(e, targets_);
}

void EventRunner::start(Clock::time_point clients_start) {
  start_ = clients_start;
  started_ = true;
}

nlohmann::json& EventRunner::entry(const EventAction& a) {
  for (auto it = record_.rbegin(); it != record_.rend(); ++it)
    if ((*it)["event"] == a.event && (*it)["occurrence"] == a.occurrence) return *it;
  const FaultEvent& e = events_[a.event];
  record_.push_back({{"kind", e.kind->name}, {"event", a.event}, {"occurrence", a.occurrence}});
  // Which server it struck: with replicas, what each did is read per replica.
  if (e.kind->target != EventTarget::kLink) record_.back()["replica"] = e.replica;
  return record_.back();
}

void EventRunner::run(const EventAction& a, Clock::time_point now, bool at_end) {
  const FaultEvent& e = events_[a.event];
  std::string phase(event_phase_name(a.phase));
  double actual = tenth(ms_between(start_, now));
  log_.comment(fmt::format("event {} #{} {}{}: planned at {} ms, now {} ms{}", e.kind->name, a.occurrence, phase,
                           e.replica != 1 ? fmt::format(" on replica {}", e.replica) : "", a.planned.count(), actual,
                           at_end ? " (the clients are done)" : ""));
  {
    nlohmann::json& rec = entry(a);
    rec["planned_" + phase + "_ms"] = a.planned.count();
    rec[phase + "_ms"] = actual;
    if (at_end) rec["at_end"] = true;
  }
  auto began = Clock::now();
  nlohmann::json did;
  try {
    did = e.kind->apply(targets_, e, a.phase);
  } catch (const std::exception& ex) {
    entry(a)[phase] = {{"error", ex.what()}, {"took_ms", tenth(ms_between(began, Clock::now()))}};
    throw;
  }
  if (!did.is_object()) did = {{"result", did}};
  did["took_ms"] = tenth(ms_between(began, Clock::now()));
  entry(a)[phase] = did;
}

std::optional<EventRunner::Clock::time_point> EventRunner::poll(Clock::time_point now) {
  if (!started_) start(now);
  for (const EventAction& a : scheduler_.due(now - start_)) run(a, Clock::now(), false);
  auto next = scheduler_.next();
  if (!next) return std::nullopt;
  return start_ + *next;
}

void EventRunner::finish(Clock::time_point now) {
  if (!started_) start(now);
  finished_ms_ = tenth(ms_between(start_, now));
  std::exception_ptr first;
  for (const EventAction& a : scheduler_.finish()) {
    try {
      run(a, Clock::now(), true);
    } catch (...) {
      if (!first) first = std::current_exception();  // undo the rest all the same
    }
  }
  if (first) std::rethrow_exception(first);
}

std::vector<EventRunner::Unstarted> EventRunner::unstarted() const {
  std::vector<Unstarted> out;
  for (const EventScheduler::Unstarted& u : scheduler_.unstarted())
    out.push_back({u, std::string(events_[u.event].kind->name)});
  return out;
}

}  // namespace rpclab::netem
