// One dependability cell, start to finish: link and faults, server with its
// ledger, load, clients sending their sequences with NEXT, then the join.
// Returns the cell's result record; a cell that fails or cannot run here is
// a record too (status "failed" / "skipped" with the reason).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/cell_config.h"
#include "harness/cell_environment.h"
#include "netem/command_log.h"

namespace rpclab::harness {

nlohmann::json run_dependability_cell(const CellConfig& cell, const std::string& cell_dir, CellEnvironment& env,
                                      netem::CommandLog& log);

// Why this machine lacks the fault backend a cell names explicitly
// (--faults-backend netem on a kernel without sch_netem), or "": the run
// checks every cell before the first one. A cell that would be skipped
// here anyway (no root), or that lets `auto` choose, has nothing to check.
std::string missing_backend(const CellConfig& cell, const netem::Capabilities& caps);

// Puts the join's numbers into a record (also used by tests on hand-made data).
struct ClassCounts;
void add_classes(nlohmann::json& record, const ClassCounts& classes);

}  // namespace rpclab::harness
