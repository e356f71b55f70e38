// An experiment is a row in a table: its command's own flags and the cells
// they plan, the order its trials run in, the function that runs one trial,
// the function that makes a cell's record from its trials' records, its
// report tables and plots. Everything around them is the same for every
// experiment and written once: the command (cli/experiment_command.h:
// flags every run takes, the run folder, resume, metadata.json, the views,
// the exit code) and the run loop (run_cells.h: trials, failures,
// progress, the records on disk). A new experiment is a row and its own
// files, with no copy of either.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli_forward.h"
#include "harness/record/cell_config.h"
#include "harness/record/cell_record.h"
#include "harness/record/run_metadata.h"
#include "harness/run/cell_environment.h"
#include "harness/run/trial_schedule.h"
#include "process/command_log.h"

namespace rpclab::harness {

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
  bool brief = false;               // the terminal's tables rather than every table
  std::vector<std::string> tables;  // only these tables (by id), in this order; empty = all
  bool headline = true;             // with the headline tables (report.html draws them apart, first)
};

// One table of an experiment's report: named once, here, and found by its
// id everywhere else (`rpclab report --table`, tools/docs-tables.sh).
struct ReportTable {
  std::string id;     // "levy-load"
  std::string title;  // what it shows, one line (`rpclab report --help`)
  std::function<std::string(const std::vector<CellRecord>& records, const ReportOptions& options)> render;
  bool in_file = true;      // report.txt, report.html, `rpclab report`
  bool on_terminal = true;  // what the run prints as it ends
  // The answer at a glance (the verdict): first in report.txt and report.md,
  // above everything in report.html, and the run's last words on the
  // terminal, after the other tables (so not among on_terminal's).
  bool headline = false;
};

// report.html's "Every cell" table: an experiment's own figures of one
// cell, as columns after the common ones (a cell that did not run has
// none: values() returns fewer, and the rest stay empty).
struct CellFigures {
  std::vector<std::string> headers;
  std::function<std::vector<std::string>(const CellRecord& record)> values;
  std::string note;  // what the figures are, one line under the table's heading
};

// Which figures of a record are noise rather than a finding, and how every
// view marks them (speed: speed_rows.h's rule). `noisy(record, "p50")`
// asks of one percentile; a mean goes with its cell's p50. An empty
// `noisy`: no figure is.
struct NoiseRule {
  std::function<bool(const CellRecord& record, const std::string& percentile)> noisy;
  std::string mark;  // written after a noisy figure, e.g. "41.2~"
  std::string note;  // its one explanation, under a table that shows it
};

// What an experiment's flags ask for, before anything runs.
struct Plan {
  std::vector<CellConfig> cells;
  std::string what;                // "preset quick", for the run's opening line
  std::vector<std::string> notes;  // said on stderr before the run (tables left out, uneven splits)
  RunMetadata metadata;            // the experiment's own fields of metadata.json (preset, workload, ...)
};

// A preset's own transports include the adapters built when rpclab started
// (docs/adapters.md); those it could not include go into the plan's notes
// and metadata.json's adapters_skipped, each with the reason. Nothing when
// --transports names the transports (`preset_transports` false).
void add_adapters_left_out(Plan& plan, bool preset_transports);

// Where the run is about to happen, for a planner that depends on it.
struct PlanContext {
  bool root = false;
  bool server_host = false;  // --server-host: the server is on another machine
  bool client_host = false;  // --client-host: ... and the clients on a third
};

// Something the run holds while it lasts (speed: /dev/cpu_dma_latency at 0).
struct RunHold {
  virtual ~RunHold() = default;
};

// An experiment's own flags, parsed into the object by CLI11; the
// experiment command calls plan() once they are parsed.
class ExperimentFlags {
 public:
  virtual ~ExperimentFlags() = default;
  // The cells. Throws std::invalid_argument or CLI::ValidationError for
  // flags that do not make a run (a usage error, exit 2, nothing run).
  virtual Plan plan(const PlanContext& context) = 0;
  // Just before the run, with the machine known: what the run holds, what
  // its environment and metadata.json get, and what the person is told.
  // Returns null when the run holds nothing.
  virtual std::unique_ptr<RunHold> prepare(CellEnvironment& env, RunMetadata& metadata) { return nullptr; }
  // The trials' order is drawn from a seed (--shuffle-seed).
  virtual bool shuffles() const { return false; }
  virtual std::optional<uint64_t> shuffle_seed() const { return std::nullopt; }
};

// A preset its --preset takes, with what it asks (the flag's help).
struct PresetRow {
  std::string name;
  std::string summary;
};

struct Experiment {
  std::string name;  // "dependability", "speed": the command and the record's `experiment`
  std::string help;  // the command's one line in `rpclab --help`
  // Its presets, in --preset's order. `rpclab presets` (docs/presets.md)
  // plans each through add_flags and plan, as a run does, and describes
  // the cells.
  std::function<std::vector<PresetRow>()> presets;
  // Adds the experiment's own flags to its command.
  std::function<std::unique_ptr<ExperimentFlags>(CLI::App& command)> add_flags;
  std::function<std::vector<TrialSlot>(const std::vector<CellConfig>&, uint64_t shuffle_seed)> schedule;
  // A runner for one run, whose folder is `run_dir` (speed's keeps its
  // servers and links for the run, its servers' files there).
  std::function<TrialRunner(const std::string& run_dir, CellEnvironment&)> trial_runner;
  // Why a cell cannot run on this machine ("" when it can), decided from
  // the cell and the machine before any trial, by the same rule the
  // trial runner marks it skipped with: the plan's time estimate leaves
  // out such cells' trials. Null: every cell counts.
  std::function<std::string(const CellConfig&, const CellEnvironment&)> cannot_run;
  // 0: every trial's line is fsynced as it is written. Otherwise the run
  // folder syncs its lines and the trials' records (written with
  // Sync::kLater) at most this far apart (RunFolder::sync_in_batches): for
  // thousands of trials of a few milliseconds each (speed), where the
  // fsyncs cost more than the calls.
  std::chrono::milliseconds sync_batch{0};
  CellSummary summarize;
  std::vector<ReportTable> tables;  // in the order they print
  CellFigures cell_figures;         // report.html's "Every cell" columns
  // Figures results.csv gives beside a record's own fields, worked out
  // from it as the tables work them out (speed: which percentiles are
  // noise, so a spreadsheet shows the mark the tables show); an object
  // merged into the record's (null: none).
  std::function<nlohmann::json(const CellRecord& record)> csv_columns;
  // Which figures are noise (rpclab compare marks them as the tables do).
  NoiseRule noise;
  // Draws the plots (PNG and SVG) into the run folder; returns the PNGs.
  std::function<std::vector<std::string>(const std::vector<CellRecord>& records, const std::string& dir,
                                         process::CommandLog& log, std::vector<std::string>* notes)>
      plots;
  // A finished trial or cell that ran ok in a few words, for its progress
  // line (the loop words the others).
  std::function<std::string(const TrialRecord& trial)> trial_words;
  std::function<std::string(const CellRecord& cell)> cell_words;

  // The report: its tables (render_report below).
  std::string report(const std::vector<CellRecord>& records, const ReportOptions& options) const;
  // The headline tables alone (ReportTable::headline), "" when there are none.
  std::string headline(const std::vector<CellRecord>& records, const ReportOptions& options) const;
  std::vector<std::string> table_ids() const;
};

// The tables `options` asks for (by id, in that order; else those for the
// file, or with `brief` for the terminal), each that has something to
// show, a blank line between them (each table renders its own Markdown).
std::string render_report(const std::vector<ReportTable>& tables, const std::vector<CellRecord>& records,
                          const ReportOptions& options);

}  // namespace rpclab::harness
