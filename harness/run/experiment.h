// An experiment is a row in a table: its name, the order its trials run
// in, the function that runs one trial, the function that makes a cell's
// record from its trials' records, and its report. The run loop
// (run_cells.h) owns everything around them for every experiment: resume,
// start and end times, failure capture, progress, the records on disk.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/cell_config.h"
#include "harness/record/cell_record.h"
#include "harness/run/cell_environment.h"
#include "harness/run/trial_schedule.h"
#include "process/command_log.h"

namespace rpclab::harness {

class RunFolder;

// Which trial of which cell, and its folder (made fresh and empty).
struct TrialPlace {
  size_t cell_index = 1;  // 1-based position in the matrix (the NNN of cells/NNN-label)
  uint32_t trial = 1;     // 1..trials
  uint32_t trials = 1;
  std::string dir;        // cells/NNN-label/trial-K
};

// Runs one trial and puts its measurements into `trial`, whose common
// fields the loop has set; marks it "skipped" when the cell cannot run
// here (then the cell's other trials are not run). Throws for a trial
// that cannot finish: the loop records it as failed, with the reason.
using TrialRunner = std::function<void(const CellConfig&, const TrialPlace&, CellEnvironment&, process::CommandLog&,
                                       TrialRecord& trial)>;

// Adds a cell's own figures to its record from its trials' records (every
// one, by trial number; the figures come from those with status "ok");
// the loop has set the common fields and the status. `earlier`: the run's
// cell records so far (a speed cell is compared with its floor's).
using CellSummary = std::function<void(const CellConfig&, const std::vector<TrialRecord>& trials,
                                       const std::vector<CellRecord>& earlier, CellRecord& record)>;

// The trials that ended ok.
std::vector<TrialRecord> ok_trials(const std::vector<TrialRecord>& trials);

struct ReportOptions {
  std::string data_dir;             // docs/data: Levy's 1989 figures
  bool markdown = false;            // Markdown tables for docs, instead of aligned text
  bool brief = false;               // the terminal's summary rather than every table
  std::vector<std::string> tables;  // only these tables (by id); empty = all
};

struct Experiment {
  std::string name;  // "dependability", "speed": the record's `experiment`
  std::function<std::vector<TrialSlot>(const std::vector<CellConfig>&, uint64_t shuffle_seed)> schedule;
  // A runner for one run: speed's keeps its servers and links for the run.
  std::function<TrialRunner(RunFolder&, CellEnvironment&)> trial_runner;
  CellSummary summarize;
  std::function<std::string(const std::vector<CellRecord>& records, const ReportOptions&)> report;
  std::vector<std::string> report_tables;  // the ids `--table` takes
  // Draws the plots (PNG and SVG) into the run folder; returns the PNGs.
  std::function<std::vector<std::string>(const std::vector<CellRecord>& records, const std::string& dir,
                                         process::CommandLog& log, std::vector<std::string>* notes)>
      plots;
  // A finished trial or cell in a few words, for its progress line.
  std::function<std::string(const TrialRecord& trial)> trial_words;
  std::function<std::string(const CellRecord& cell)> cell_words;
};

const std::vector<Experiment>& experiments();
// Throws std::invalid_argument naming the known ones.
const Experiment& find_experiment(const std::string& name);

}  // namespace rpclab::harness
