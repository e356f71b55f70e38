#include "netem/config/fault_config.h"

#include <fmt/format.h>

#include "netem/config/fault_events.h"
#include "netem/spec/fault_fields.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {

namespace {

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

void validate(const FaultSpec& s) {
  for (const FaultField& f : fault_fields()) f.check(s);
  check_field_rules(s);
  validate_events(s.events);
}

void to_json(nlohmann::json& j, const FaultSpec& s) {
  j = nlohmann::json::object();
  j["profile"] = s.profile;
  for (const FaultField& f : fault_fields()) j[f.json_key] = f.to_json(s);
  // Written only when there are some, so a spec without events has the
  // JSON it always had (--resume matches cells on it).
  if (!s.events.empty()) j["events"] = s.events;
}

void from_json(const nlohmann::json& j, FaultSpec& out) {
  if (!j.is_object()) throw SpecError("fault spec: expected a JSON object");
  FaultSpec s;
  try {
    for (const auto& [key, value] : j.items()) {
      if (key == "profile") {
        s.profile = value.get<std::string>();
      } else if (key == "events") {
        for (const auto& e : value.get<std::vector<nlohmann::json>>()) s.events.push_back(e.get<FaultEvent>());
      } else if (const FaultField* f = find_field_by_json_key(key)) {
        f->set_from_json(s, value);
      } else {
        throw SpecError("fault spec: unknown field \"" + key + "\"");
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw SpecError(std::string("fault spec: ") + e.what());
  }
  validate(s);
  out = s;
}

std::string summary(const FaultSpec& s) {
  std::string out;
  auto add = [&out](const std::string& part) {
    if (!part.empty()) out += (out.empty() ? "" : " ") + part;
  };
  for (const FaultField& f : fault_fields()) add(f.summary(s));
  if (!out.empty()) add(direction_name(s.direction));  // steady faults only; events are both ways
  for (const FaultEvent& e : s.events) add(summary(e));
  return out.empty() ? "none" : out;
}

}  // namespace rpclab::netem
