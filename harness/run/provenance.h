// What metadata.json says about where, by what and under which name a run
// was made: rpclab's version and commit, the host (name, OS, kernel, CPU
// model and count), the machine's capabilities field by field, and the
// run's --title. Two runs compared later are told apart by these.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/record/run_metadata.h"
#include "harness/run/run_folder.h"
#include "netem/topology/capabilities.h"

namespace rpclab::harness {

// The run's metadata's `rpclab`, `host` and `capabilities`.
void add_provenance(RunMetadata& meta, const netem::Capabilities& caps);

// hostname, os, kernel (release, version, machine), cpu_model, cpu_count.
HostFacts host_facts();

// The run's title: `given` if not empty, else the one a resumed run's
// metadata.json holds, else "".
std::string settle_title(const RunFolder& folder, bool resume, const std::string& given);

// `report` headed by "Title: TITLE" when there is a title.
std::string with_title(const std::string& title, const std::string& report);

}  // namespace rpclab::harness
