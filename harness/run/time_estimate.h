// How long a plan will take, said before its first trial: each trial is
// its calls at the time a call takes in that kind of cell, plus the
// trial's own overhead (link, servers, snapshots, join). Both constants
// are measured, never typed: `rpclab time-constants RUN_DIR...` fits them
// from the trials.jsonl of named runs into a small table kept beside the
// presets' reference data (docs/data/time-constants.json), each row
// saying which run it came from.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/cell_config.h"
#include "harness/record/trial_record.h"

namespace rpclab::harness {

// The constants of one kind of cell. A key field of "*" matches any
// value; the most specific row that matches a cell is the one used
// (key_levels() says the order), so a cell no run has measured yet still
// gets the figures of its experiment and topology.
struct TimeConstant {
  std::string experiment, block = "*", transport = "*", topology = "*", connect = "*";
  // Wall time per call of one client's sequence (clients run side by
  // side), warm-up calls included: call_s + call_s_per_byte x the cell's
  // size (a speed row's 12 B call takes 0.1 ms, its 1 MiB call 3 to 40;
  // 0 where the sizes measured did not make calls slower).
  double call_s = 0;
  double call_s_per_byte = 0;
  double overhead_s = 0;  // a trial's wall time beside its calls, mean over the trials
  size_t trials = 0;      // how many trials they are from
  std::string run;        // the runs they were measured in (run_ids, comma-separated)
};

struct TimeConstants {
  std::vector<TimeConstant> rows;
};
void to_json(nlohmann::json& j, const TimeConstant& c);
void from_json(const nlohmann::json& j, TimeConstant& c);
void to_json(nlohmann::json& j, const TimeConstants& t);
void from_json(const nlohmann::json& j, TimeConstants& t);

// The table in use: share/rpclab/data when installed, docs/data otherwise.
std::string time_constants_path();
// The table at `path`; an empty table when there is no such file. Throws
// std::runtime_error naming the file when it is not a table.
TimeConstants read_time_constants(const std::string& path);

// The key of `cell` at each level, most specific first: block, transport,
// topology and connection; then without the transport; without the
// block (with the transport); without either; without the connection;
// the experiment alone.
std::vector<TimeConstant> key_levels(const CellConfig& cell);
const TimeConstant* constant_for(const TimeConstants& table, const CellConfig& cell);
// One trial of `cell`: its calls (or its fixed duration) and overhead;
// nullopt when no row matches it.
std::optional<double> trial_estimate_s(const TimeConstants& table, const CellConfig& cell);

// Every trial of `cells` (each cell's `trials`, at least one); nullopt
// when one of them has no row.
std::optional<double> cells_estimate_s(const TimeConstants& table, const std::vector<CellConfig>& cells);

// The trials of `cells` whose kind of cell (its block: clean, load,
// faults, ...) no run has measured, so that their figures are borrowed
// from the nearest kind that has been: the estimate says how many, since
// a borrowed figure is usually low (a loaded or faulted trial takes longer
// than a clean one).
size_t trials_borrowing(const TimeConstants& table, const std::vector<CellConfig>& cells);
// "" when none borrow, else "; N of M trials borrow ... (run: rpclab time-constants ...)".
std::string borrowing_note(const TimeConstants& table, const std::vector<CellConfig>& cells);

// The calls one client makes in a trial of `cell`: its recorded calls and
// its warm-up.
uint64_t calls_a_trial(const CellConfig& cell);

// What a finished trial spent: its wall time and, of that, the time its
// calls took (one client's sequence: the dependability clients' own
// wall time, or a speed trial's calls and warm-up x mean latency); calls_s is 0 when
// the record says nothing of its calls (a calibration trial, NFS), and
// the whole trial is then overhead.
struct TrialTime {
  CellConfig cell;
  double wall_s = 0, calls_s = 0;
  std::string run;
};
std::optional<TrialTime> trial_time(const TrialRecord& trial);  // nullopt: not ok, or no wall time

// How long the run's trials were to take and took: the plan's estimate
// (nullopt when the time constants had no row for the experiment) and
// the trial loop's wall time, setup included. metadata.json keeps it in
// its summary (`wall_time`).
struct WallTime {
  std::optional<double> estimated_s;
  double actual_s = 0;
};
void to_json(nlohmann::json& j, const WallTime& w);
void from_json(const nlohmann::json& j, WallTime& w);
// "took 4 min 10 s, estimated 3 min 50 s from the plan": the report's words.
std::string wall_time_words(const WallTime& w);

// The run's time on each progress line: elapsed, and the estimate of the
// trials left at the pace the finished ones kept against theirs (a
// machine busier than the one the constants were measured on is slower
// by the same factor).
class PlanClock {
 public:
  explicit PlanClock(double estimated_s) : left_s_(estimated_s) {}
  // A trial that ran, or one that will not (its cell was skipped): its
  // estimate comes off what is left, and only one that ran sets the pace.
  void trial_done(double estimate_s, bool ran);
  double left_s(double elapsed_s) const;  // `elapsed_s`: the run's time so far
  std::string words(double elapsed_s) const;  // "1 min 5 s in, about 4 min left"

 private:
  double left_s_, ran_estimate_s_ = 0;
};

// The rows at every level of key_levels() for the trials given: a row's
// time per call is a line in the cells' size, fitted to its trials' times
// a call weighted by their calls (so the fitted rows give the trials they
// came from the time they took, in all), flat when it would fall.
TimeConstants fit_time_constants(const std::vector<TrialTime>& trials);
// `fresh`'s rows, and those of `old` whose key `fresh` has no row for or,
// for a row of any block, whose row in `fresh` is from fewer trials or
// has no call time where the old one has one.
TimeConstants merge_time_constants(const TimeConstants& old, const TimeConstants& fresh);

}  // namespace rpclab::harness
