// The levy-surface preset's views (issue 26): per cell of retransmit
// interval x server load, in how many trials a cascade started (the onset
// proportion, with its Clopper-Pearson interval over trials), how many
// errors an onset brought, the silent errors per million; a table of them
// and a heat map of the silent errors beside Levy's 1989 figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/kit/stats.h"
#include "harness/record/cell_record.h"
#include "harness/run/experiment.h"
#include "process/command_log.h"

namespace rpclab::harness {

// The widest Clopper-Pearson interval of an onset proportion the issue
// accepts where the proportion is between 0.1 and 0.9.
inline constexpr double kSurfaceWidestInterval = 0.3;

struct SurfaceCell {
  int64_t interval_ms = 0;
  bool reply_cache = false;
  int hogs = 0;
  int clients = 1;
  size_t trials = 0;        // ok trials
  size_t onset_trials = 0;  // ... with at least one onset
  Interval onset_ci95;      // Clopper-Pearson over trials
  std::vector<double> errors_per_onset;  // one per trial with an onset
  double silent_per_million = 0;         // pooled over the trials' calls
  std::vector<double> server_wait_ms_per_timeslice;  // per trial, where measured
  // The interval is wider than kSurfaceWidestInterval while the proportion
  // is within [0.1, 0.9]: the cell needs more trials.
  bool undecided() const;
};

// The cells of the levy-surface tables (blocks levy-surface*), ok ones,
// by reply cache, interval and load.
std::vector<SurfaceCell> surface_cells(const std::vector<CellRecord>& records);

// The report's `surface` table ("" without levy-surface cells).
std::string surface_table(const std::vector<CellRecord>& records, const ReportOptions& options);

// Levy's Sun RPC (udp) figures by load (0, 5, 10, 20: his 0.1, 5, 10, 20)
// from docs/data/levy1989-dependability.csv; empty when the file is not there.
std::vector<std::pair<int, double>> levy_sun_rpc_per_million(const std::string& data_dir);

// Levy's load columns in docs/data/levy1989-dependability.csv, each with the
// hogs that stand for it here.
struct LevyLoadColumn {
  const char* column;
  int hogs;
};
const std::vector<LevyLoadColumn>& levy_load_columns();

// The heat map of silent errors per million over interval x load (the
// cells without the cache), Levy's column beside it: surface-heatmap.png,
// or none (a note says why) without levy-surface cells.
std::vector<std::string> surface_plots(const std::vector<CellRecord>& records, const std::string& data_dir,
                                       const std::string& dir, process::CommandLog& log,
                                       std::vector<std::string>* notes);

}  // namespace rpclab::harness
