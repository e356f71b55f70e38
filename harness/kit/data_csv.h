// The papers' figures in docs/data/*.csv, read one way for every report.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rpclab::harness {

// Rows of a docs/data CSV, each by its header's names: '#' lines are its
// source, the first other line its header. A missing file is no rows (the
// papers' columns stay empty).
using Csv = std::vector<std::map<std::string, std::string>>;
Csv read_csv(const std::string& path);

}  // namespace rpclab::harness
