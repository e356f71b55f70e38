// FaultSpec's own logic: every field is read, checked, written and summed
// up through the field table (fault_fields.cc); what is left here are the
// rules between fields and the events.
#include "netem/faults/fault_spec.h"

#include <algorithm>

#include <fmt/format.h>

#include "netem/faults/fault_fields.h"

namespace rpclab::netem {

namespace {

void add_once(std::vector<std::string>& words, const std::string& w) {
  if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
}

// The rules between fields, which no single row can state.
void check_field_rules(const FaultSpec& s) {
  if ((s.ge_r_pct || s.ge_1h_pct || s.ge_1k_pct) && !s.ge_p_pct)
    throw SpecError("ge_r/ge_1h/ge_1k given without ge_p: Gilbert-Elliott loss needs ge_p (0..100 percent)");
  if (s.ge_p_pct && (s.loss_pct != 0 || s.loss_corr_pct != 0))
    throw SpecError(fmt::format("loss = {} and ge_p = {}: use either random loss or Gilbert-Elliott, not both",
                                s.loss_pct, *s.ge_p_pct));
  if (s.reorder_pct > 0 && s.delay_ms == 0)
    throw SpecError(fmt::format("reorder = {}: needs delay_ms > 0 (netem reorders by sending some packets "
                                "at once and delaying the rest)", s.reorder_pct));
}

}  // namespace

std::string direction_name(Direction d) {
  switch (d) {
    case Direction::kToServer: return "to-server";
    case Direction::kToClient: return "to-client";
    case Direction::kBoth: return "both";
  }
  return "both";
}

std::optional<Direction> parse_direction(const std::string& name) {
  if (name == "to-server") return Direction::kToServer;
  if (name == "to-client") return Direction::kToClient;
  if (name == "both") return Direction::kBoth;
  return std::nullopt;
}

bool FaultSpec::empty() const {
  for (const FaultField& f : fault_fields())
    if (f.acts(*this)) return false;
  return events.empty();
}

bool FaultSpec::has_link_faults() const {
  for (const FaultField& f : fault_fields())
    if (f.acts(*this)) return true;
  for (const FaultEvent& e : events)
    if (e.kind->target == EventTarget::kLink) return true;
  return false;
}

std::vector<std::string> FaultSpec::unsupported_by(BackendKind kind) const {
  std::vector<std::string> words;
  for (const FaultField& f : fault_fields())
    if (f.acts(*this) && !(f.backends & backend_bit(kind))) add_once(words, f.what);
  for (const FaultEvent& e : events)
    if (e.kind->target == EventTarget::kLink && !(e.kind->backends & backend_bit(kind))) add_once(words, e.kind->name);
  return words;
}

void FaultSpec::validate() const {
  for (const FaultField& f : fault_fields()) f.check(*this);
  check_field_rules(*this);
  validate_events(events);
}

nlohmann::json FaultSpec::to_json() const {
  nlohmann::json j;
  j["profile"] = profile;
  for (const FaultField& f : fault_fields()) j[f.json_key] = f.to_json(*this);
  // Written only when there are some, so a spec without events has the
  // JSON it always had (--resume matches cells on it).
  if (!events.empty()) {
    j["events"] = nlohmann::json::array();
    for (const FaultEvent& e : events) j["events"].push_back(e.to_json());
  }
  return j;
}

FaultSpec FaultSpec::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw SpecError("fault spec: expected a JSON object");
  FaultSpec s;
  try {
    for (const auto& [key, value] : j.items()) {
      if (key == "profile") {
        s.profile = value.get<std::string>();
      } else if (key == "events") {
        for (const auto& e : value.get<std::vector<nlohmann::json>>()) s.events.push_back(FaultEvent::from_json(e));
      } else if (const FaultField* f = find_field_by_json_key(key)) {
        f->set_from_json(s, value);
      } else {
        throw SpecError("fault spec: unknown field \"" + key + "\"");
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw SpecError(std::string("fault spec: ") + e.what());
  }
  s.validate();
  return s;
}

std::string FaultSpec::summary() const {
  std::string out;
  auto add = [&out](const std::string& part) {
    if (!part.empty()) out += (out.empty() ? "" : " ") + part;
  };
  for (const FaultField& f : fault_fields()) add(f.summary(*this));
  if (!out.empty()) add(direction_name(direction));  // steady faults only; events are both ways
  for (const FaultEvent& e : events) add(e.summary());
  return out.empty() ? "none" : out;
}

}  // namespace rpclab::netem
