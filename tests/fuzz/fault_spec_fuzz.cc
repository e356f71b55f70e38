// Targets fault_profile and fault_spec_json: the two ways a FaultSpec comes
// from outside, a profile file (netem/profiles/*.profile, parse_profile) and
// the JSON in a cell file or a result record (from_json). Either
// accepts a spec or throws SpecError. An accepted spec must survive its own
// JSON round trip unchanged and pass validate() again.
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_targets.h"
#include "netem/config/fault_config.h"
#include "netem/config/fault_profile.h"
#include "netem/spec/fault_spec.h"
#include "netem/spec/spec_error.h"

namespace rpclab::fuzz {
namespace {

void check_accepted(const netem::FaultSpec& spec) {
  netem::validate(spec);  // throws SpecError, which the caller does not expect here
  nlohmann::json j = spec;
  netem::FaultSpec again = j.get<netem::FaultSpec>();
  RPCLAB_FUZZ_CHECK(nlohmann::json(again) == j, "the JSON round trip changed the spec: " + j.dump());
  RPCLAB_FUZZ_CHECK(!netem::summary(spec).empty(), "empty summary");
}

}  // namespace

int fuzz_fault_profile(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  netem::FaultSpec spec;
  try {
    spec = netem::parse_profile(text, "fuzz");
  } catch (const netem::SpecError&) {
    return 0;
  }
  check_accepted(spec);
  return 0;
}

int fuzz_fault_spec_json(const uint8_t* data, size_t size) {
  nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  netem::FaultSpec spec;
  try {
    spec = j.get<netem::FaultSpec>();
  } catch (const netem::SpecError&) {
    return 0;
  }
  check_accepted(spec);
  const nlohmann::json& seed = j.contains("seed") ? j["seed"] : nlohmann::json();
  RPCLAB_FUZZ_CHECK(seed.is_null() ? !spec.seed
                                   : seed.is_number_unsigned() && spec.seed && seed.get<uint64_t>() == *spec.seed,
                    "the seed taken is not the one written: " + seed.dump());
  return 0;
}

}  // namespace rpclab::fuzz
