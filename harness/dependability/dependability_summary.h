// A dependability cell's record from its trials' records: the classes and
// rates pooled over the trials (the stable fields every view reads), the
// statistics over trials of silent errors, duplicate calls and extra
// executions, the onsets of each trial, and the load and faults measured.
#pragma once

#include <vector>

#include "harness/dependability/classify.h"
#include "harness/record/cell_config.h"
#include "harness/record/cell_record.h"

namespace rpclab::harness {

// A CellSummary (experiment.h).
void summarize_dependability(const CellConfig& cell, const std::vector<TrialRecord>& trials,
                             const std::vector<CellRecord>& earlier, CellRecord& record);

// Puts the join's numbers into a record: calls, classes, Levy's mismatches
// and every rate per million with its interval (also used by tests on
// hand-made data).
void add_classes(DependabilityCell& record, const ClassCounts& classes);

}  // namespace rpclab::harness
