// The answer at a glance, made from the records alone: which cells lost or
// ran calls twice and in how many trials, which were clean in every trial
// (and what that bounds), what each cell that kept its calls safe charged
// the caller for it, and which cells were not measured. The run's last
// words on the terminal, and the top of report.txt, report.md and
// report.html (the `verdict` row of dependability_tables()).
#pragma once

#include <string>
#include <vector>

#include "harness/record/cell_record.h"
#include "harness/run/experiment.h"

namespace rpclab::harness {

// The verdict's sentences, one per line, in plain words: none is written
// by hand, each names its cells, their trial counts and their price.
std::vector<std::string> verdict_lines(const std::vector<CellRecord>& records);

// The verdict as the report's first table renders it: text, or Markdown.
std::string verdict_section(const std::vector<CellRecord>& records, const ReportOptions& options);

}  // namespace rpclab::harness
