// One dependability trial, start to finish: a fresh link and faults, a
// fresh server with its ledger, load, clients sending their sequences with
// NEXT, then the join. Its record (trials.jsonl) holds the classes, each
// client's counts, the episodes, the load and the faults measured; the
// cell's record is made from its trials' (dependability_summary.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/run/experiment.h"

namespace rpclab::harness {

// A TrialRunner (experiment.h). Marks the trial skipped when the cell
// cannot run on this machine; throws when the trial cannot finish.
void run_dependability_trial(const CellConfig& cell, const TrialPlace& place, CellEnvironment& env,
                             process::CommandLog& log, TrialRecord& trial);

// Why this machine lacks the fault backend a cell names explicitly
// (--faults-backend netem on a kernel without sch_netem), or "": the run
// checks every cell before the first one. A cell that would be skipped
// here anyway (no root), or that lets `auto` choose, has nothing to check.
std::string missing_backend(const CellConfig& cell, const netem::Capabilities& caps);

// Why a loopback cell runs on the host's own lo, or "" when it gets a
// network namespace of its own (client and server on its 127.0.0.1), where
// the wire capture can put its rules on that namespace's lo: rpclab puts
// none on the host's interfaces.
std::string why_host_loopback(const netem::Capabilities& caps);

}  // namespace rpclab::harness
