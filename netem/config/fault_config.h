// A FaultSpec checked, written and read back: every field through the
// field table (netem/spec/fault_fields.h), every event through the event
// kinds table (fault_events.h); what is left here are the rules between
// fields. Profiles, the text form: fault_profile.h.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "netem/spec/fault_spec.h"

namespace rpclab::netem {

// Every field's range, the rules between fields, the events' rules.
// Validation rejects anything out of range with a message naming the field
// and the range. Throws SpecError.
void validate(const FaultSpec& spec);

// "loss 5% dup 1% both partition at 2000ms for 2000ms"; "none" when empty.
std::string summary(const FaultSpec& spec);

// The JSON of a spec in cell and result records (nlohmann's ADL pair:
// nlohmann::json(spec), j.get<FaultSpec>()): every field, and "events" only
// when there are some. Reading validates, and throws SpecError.
void to_json(nlohmann::json& j, const FaultSpec& spec);
void from_json(const nlohmann::json& j, FaultSpec& spec);

}  // namespace rpclab::netem
