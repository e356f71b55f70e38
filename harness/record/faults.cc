#include "harness/record/faults.h"

#include <fmt/format.h>

#include "harness/record/json_fields.h"
#include "netem/config/fault_config.h"

// The spec's JSON form is netem's own (netem/config/fault_config.h), as
// the cell's `faults` holds it.

namespace rpclab::harness {
namespace {

using nlohmann::json;
using fields::get;
using fields::ObjectReader;
using fields::ObjectWriter;

template <typename Io, typename F>
void describe_applied(Io& io, F& f) {
  io("backend", f.backend);
  io("backend_reason", f.backend_reason);
  io("spec", f.spec);
  io("loss_pct", f.loss_pct);
  io("dup_pct", f.dup_pct);
  io("measured_loss_pct", f.measured_loss_pct);
  io("measured_dup_pct", f.measured_dup_pct);
  io("seed", f.seed);
  io("seed_applied", f.seed_applied);
}

template <typename Io, typename F>
void describe_trial(Io& io, F& f) {
  describe_applied(io, f);
  io("packets_offered", f.packets_offered);
  io("counters_before", f.counters_before);
  io("counters_after", f.counters_after);
}

template <typename Io, typename F>
void describe_cell(Io& io, F& f) {
  describe_applied(io, f);
  io("packets_offered", f.packets_offered);
  io("measured_per_trial", f.measured_per_trial);
}

template <typename Io, typename E>
void describe_events(Io& io, E& e) {
  io("occurrences_per_trial", e.occurrences_per_trial);
  io("warnings", e.warnings);
}

}  // namespace

CellFaults pooled_faults(const std::vector<TrialFaults>& trials) {
  CellFaults f;
  static_cast<FaultsApplied&>(f) = trials.front();
  double offered = 0, carried = 0, dropped = 0, duplicated = 0;
  std::vector<std::array<double, 2>> per_trial;
  for (const TrialFaults& m : trials) {
    if (!m.measured_loss_pct.has_value()) continue;
    double o = static_cast<double>(m.packets_offered.value_or(0)), dup = m.measured_dup_pct.value_or(0.0) * o / 100;
    offered += o;
    duplicated += dup;
    carried += o + dup;
    dropped += *m.measured_loss_pct * (o + dup) / 100;
    per_trial.push_back({*m.measured_loss_pct, m.measured_dup_pct.value_or(0.0)});
  }
  if (per_trial.empty()) return f;
  f.packets_offered = offered;
  f.measured_loss_pct = MaybeNull<double>::of(carried > 0 ? 100 * dropped / carried : 0.0);
  f.measured_dup_pct = MaybeNull<double>::of(offered > 0 ? 100 * duplicated / offered : 0.0);
  f.measured_per_trial = per_trial;
  return f;
}

void to_json(json& j, const TrialFaults& f) {
  ObjectWriter out(j);
  describe_trial(out, f);
}

void from_json(const json& j, TrialFaults& f) {
  f = TrialFaults{};
  ObjectReader in(j);
  describe_trial(in, f);
}

void to_json(json& j, const CellFaults& f) {
  ObjectWriter out(j);
  describe_cell(out, f);
}

void from_json(const json& j, CellFaults& f) {
  f = CellFaults{};
  ObjectReader in(j);
  describe_cell(in, f);
}

EventOccurrence event_occurrence(const json& entry) {
  EventOccurrence e;
  e.entry = entry;
  get(entry, "kind", e.kind);
  get(entry, "occurrence", e.occurrence);
  for (const char* phase : {"start", "end"}) {
    auto it = entry.find(phase);
    if (it == entry.end() || !it->contains("warning")) continue;
    e.warnings.push_back(fmt::format("{} #{} {}: {}", e.kind.empty() ? "?" : e.kind, e.occurrence, phase,
                                     it->at("warning").get<std::string>()));
  }
  return e;
}

uint64_t resets_seen(const EventOccurrence& e) {
  uint64_t n = 0;
  auto add = [&](const char* phase, std::initializer_list<const char*> keys) {
    auto it = e.entry.find(phase);
    if (it == e.entry.end() || !it->is_object()) return;
    for (const char* k : keys)
      if (it->contains(k)) {  // a count: a float or a negative (a damaged record) adds nothing
        const nlohmann::json& v = (*it)[k];
        if (v.is_number_unsigned()) n += v.get<uint64_t>();
        else if (v.is_number_integer() && v.get<int64_t>() > 0) n += static_cast<uint64_t>(v.get<int64_t>());
      }
  };
  add("start", {"closed_at_server", "closed_at_client"});
  add("end", {"reset_to_server", "reset_to_client"});
  return n;
}

void to_json(json& j, const EventOccurrence& e) { j = e.entry; }
void from_json(const json& j, EventOccurrence& e) { e = event_occurrence(j); }

void to_json(json& j, const EventsOverTrials& e) {
  ObjectWriter out(j);
  describe_events(out, e);
}

void from_json(const json& j, EventsOverTrials& e) {
  e = EventsOverTrials{};
  ObjectReader in(j);
  describe_events(in, e);
}

}  // namespace rpclab::harness
