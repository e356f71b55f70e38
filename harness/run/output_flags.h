// The flags that shape what a run shows, the same for every experiment:
// --title names the run (metadata.json, report.txt, like flent's -t), and
// --format json streams each finished cell's record to stdout as one JSON
// line (like iperf3's --json-stream) while every human line goes to stderr.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli_forward.h"
#include "harness/record/cell_config.h"
#include "harness/run/experiment_run.h"

namespace rpclab::harness {

void add_output_flags(CLI::App* cmd, RunOptions& run);

// Where the tables and other lines for a person go: stderr under
// --format json (stdout is the records'), stdout otherwise.
std::FILE* human_out(const RunOptions& run);

// One record as a JSON line on stdout, flushed at once so a reader of a
// pipe sees each cell as it ends.
void print_json_line(const nlohmann::json& record);

// --dry-run: the cells, one line each ("  3  label  5 x 2,000 calls";
// "at most" before the calls of a cell that runs for a fixed time), or
// under --format json one JSON line each: index, label, trials, calls
// and the cell's settings.
void list_cells(const std::vector<CellConfig>& cells, const RunOptions& run);

}  // namespace rpclab::harness
