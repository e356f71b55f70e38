// `rpclab report RUN`: a run folder's tables again, and its report.html and
// plots made again, from its results.jsonl alone; with --markdown (tables only), as Markdown headed by the run's id and date, for
// docs/ (tools/docs-tables.sh puts them between the markers there).
#pragma once

#include <functional>

#include "common/cli_forward.h"

namespace rpclab::harness {

std::function<int()> add_report_command(CLI::App& app);

}  // namespace rpclab::harness
