// `rpclab doctor`'s wording of the capabilities: for every line, what was
// checked, how, and the result; for what was not checked, why. A kernel
// feature that could not be tried is "unknown", never "no".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "netem/topology/capabilities.h"

namespace rpclab::netem {

std::string describe(const Capabilities& caps);  // the `rpclab doctor` report
// The same findings as fields, for metadata.json: each check true, false,
// or null when it could not be tried (not root); the usable fault
// backends; and what will be skipped, one line each.
nlohmann::json capabilities_json(const Capabilities& caps);

}  // namespace rpclab::netem
