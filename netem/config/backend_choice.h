// Which backend applies a spec: the one asked for (--faults-backend), or
// with "auto" the first that is here and can apply all of it. It reads both
// tables (what each field and each event kind can be applied by) and what
// this machine has, so it sits above them and above the backends.
#pragma once

#include <string>

#include "netem/spec/backend_kind.h"
#include "netem/spec/fault_spec.h"
#include "netem/topology/capabilities.h"

namespace rpclab::netem {

// `requested` is "auto", "netem", "uml-netem" or "nftables". An empty spec
// needs no backend (kNone). Throws SpecError when the requested backend
// cannot do what the spec asks (nftables with delay) or is not available
// here, saying what is missing and how to get it.
Choice choose_backend(const std::string& requested, const FaultSpec& spec, const Capabilities& caps);
// Throws SpecError when `requested` could not apply `spec` on any machine
// (nftables asked to delay): a usage error, found before any cell runs.
void check_backend_can_apply(const std::string& requested, const FaultSpec& spec);

}  // namespace rpclab::netem
