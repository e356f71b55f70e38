// What `rpclab compare` shows of a RunComparison (run_compare.h): the rows
// of its table and its summary line (text, JSON and the page share them),
// and compare.html, A and B side by side:
// - the two runs' metadata in one table, the lines where they differ marked;
// - the summary, then the figures that differ, then every figure of every
//   matched cell (A, B, change in percent, test, p, verdict), each row
//   marked differs / untestable / untested;
// - one plot per figure with both runs on one axis: a row per cell, each
//   ok trial a dot and the mean a bar, A above B, the verdict beside it;
// - each matched speed cell's latency CDF, A and B overlaid;
// - the cells only one run has.
// Plots are SVG drawn here (no gnuplot needed, nothing fetched), their axes
// from the data present, so no point lies outside the frame.
#pragma once

#include <string>
#include <vector>

#include "harness/record/run_metadata.h"
#include "harness/report/run_compare.h"

namespace rpclab::harness {

const std::vector<std::string>& compare_header();  // cell, figure, A, B, B vs A, test, p, differs
std::vector<std::vector<std::string>> compare_rows(const RunComparison& c);
std::string compare_verdict(const CellComparison& m, double alpha);  // the `differs` column
// The last line: the outcome and its exit code, how many figures could be
// tested, how many not and why ("cannot tell silent, duplicate (exit 3):
// 0 of 60 figures testable; 60 had 3 vs 3 trials (p >= 0.1)").
std::string compare_summary(const RunComparison& c);
// The default text before it, every line within kCompareTextWidth: the
// figures that differ under their cell's label, then a count of the rest.
inline constexpr size_t kCompareTextWidth = 100;
std::string compare_brief(const RunComparison& c);

// One side of the comparison: the folder as given and its metadata.json.
struct ComparedRun {
  std::string dir;
  RunMetadata metadata;
};

// A comment at the top of every page compare writes: compare overwrites a
// file only when its start holds this (a page it wrote before).
extern const char* const kComparePageMark;

std::string compare_page(const RunComparison& c, const ComparedRun& a, const ComparedRun& b);

}  // namespace rpclab::harness
