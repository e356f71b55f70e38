// A speed cell's record from its trials: percentiles over every call of
// every trial (from the trials' call records), one mean per trial, and
// the comparisons with the floor and with sockperf, whose cells' records
// the run has already written (their trials ran in the same rounds).
#pragma once

#include "transport/transport.h"
#include <vector>

#include "transport/transport.h"
#include "harness/record/cell_config.h"
#include "harness/record/cell_record.h"

namespace rpclab::harness {

// A CellSummary (experiment.h).
void summarize_speed(const CellConfig& cell, const std::vector<TrialRecord>& trials,
                     const std::vector<CellRecord>& earlier, CellRecord& record);

// The bytes each way per call, from the trials' link counters (`wire`:
// tx/rx bytes and packets of the client's end) over the calls the server
// ran: frames, and the RPC's own bytes with each frame's headers taken
// off. Null when a trial counted nothing (loopback).
MaybeNull<WirePerCall> wire_summary(const TransportRow& row, const std::vector<TrialRecord>& ok_trials,
                                    double served);

}  // namespace rpclab::harness
