// report.html: one self-contained page per run folder, a view of its
// results.jsonl like report.txt (docs/guide.md, "How to read the
// report", which the page links to): the run's metadata, the tables of report.txt as HTML tables,
// every plot inline as SVG, every cell's own figures (its experiment's), and each
// cell's settings, link state and commands one click away.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/run/experiment.h"
#include "harness/record/cell_record.h"
#include "harness/record/run_metadata.h"
#include "process/command_log.h"

namespace rpclab::harness {

struct HtmlReportInput {
  RunMetadata metadata;                  // metadata.json
  std::vector<CellRecord> records;       // the latest record of each cell
  std::vector<std::string> plot_pngs;    // drawn plots; the SVG beside each is inlined
  std::string headline_markdown;         // the answer at a glance (the verdict), as Markdown: first of all
  std::string tables_markdown;           // the experiment's report without it, as Markdown
  std::string commands_log;              // commands.log, to cut into cells
  CellFigures cell_figures;              // the experiment's own columns of "Every cell"
};

std::string html_report(const HtmlReportInput& in);
// Where the page sends its reader: the guide's reading section.
extern const char* const kReportGuide;

// What metadata.json says of a run, one {what, value} row each (title,
// run, experiment and preset, rpclab, host, kernel, CPU, times, command).
std::vector<std::vector<std::string>> run_facts(const RunMetadata& meta);

struct HtmlReportFiles {
  std::string html;               // <run_dir>/report.html
  std::vector<std::string> pngs;  // the plots drawn (an SVG beside each)
};

// Draws the run's plots and writes report.html from <run_dir>'s
// results.jsonl and metadata.json, with `experiment`'s tables and plots,
// into `views_dir` (empty: the run folder; a shipped run's folder is kept
// as the repository holds it, so its views go elsewhere). Throws
// std::runtime_error (not a run folder, report.html is not a regular file).
HtmlReportFiles write_html_report(const Experiment& experiment, const std::string& run_dir, process::CommandLog& log,
                                  std::vector<std::string>* notes, const std::string& views_dir = "");

// Writes report.html as a run ends; a failure becomes a note, since the
// run's results are on disk whatever happens to one view of them.
HtmlReportFiles html_report_at_end(const Experiment& experiment, const std::string& run_dir, process::CommandLog& log,
                                   std::vector<std::string>* notes);

}  // namespace rpclab::harness
