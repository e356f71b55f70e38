// The delay side of the levy-surface preset (issue 26, item 2): how long
// each request waited in the server before it ran, from the journal, and
// whether the cells' onsets follow from it. A journal record holds two
// instants of an execution: its datagram's arrival (the kernel's receive
// stamp, CLOCK_REALTIME, where the transport gives it: sunrpc-udp does)
// and the moment the server's core took the call (CLOCK_MONOTONIC). The
// reply leaves microseconds after the core takes the call (the NEXT
// procedure does no work), so arrival to taking is the server's delay.
#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_record.h"
#include "process/command_log.h"
#include "server/journal_format.h"

namespace rpclab::harness {

// Each execution's wait from arrival to the core, ms, for the records that
// carry the kernel's arrival stamp. The two clocks differ by a constant
// offset, taken as the one that makes the shortest wait 0: each wait is
// then too short by that shortest wait (tens of microseconds on loopback).
std::vector<double> arrival_to_core_ms(const std::vector<journal::Record>& records);

struct DelayQuantiles {
  size_t executions = 0;
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
  size_t later_than_interval = 0;  // waits longer than the retransmit interval
};
DelayQuantiles delay_quantiles(std::vector<double> waits_ms, double interval_ms);

// One point per levy-surface cell without the cache: onsets per 1,000,000
// calls predicted (the share of executions that waited longer than the
// interval, pooled over the trials' journals) and observed (the trials'
// onsets over their calls).
struct DelayPoint {
  int64_t interval_ms = 0;
  int hogs = 0;
  size_t trials_read = 0;  // trials whose journal was read
  DelayQuantiles waits;    // pooled over those trials
  double predicted_per_million = 0, observed_per_million = 0;
};
std::vector<DelayPoint> delay_points(const std::vector<CellRecord>& records, const std::string& run_dir,
                                     std::vector<std::string>* notes);

// surface-delay.png (observed against predicted, log10(1 + x) both ways,
// the diagonal drawn) and surface-delay-cells.dat beside it (each cell's
// wait quantiles); none without levy-surface cells whose journals are there.
std::vector<std::string> surface_delay_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                             process::CommandLog& log, std::vector<std::string>* notes);

}  // namespace rpclab::harness
