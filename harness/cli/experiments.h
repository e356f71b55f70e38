// The table of experiments: one row each (run/experiment.h), in the order
// `rpclab --help` lists their commands. The only place that names them all.
#pragma once

#include <string>
#include <vector>

#include "harness/run/experiment.h"

namespace rpclab::harness {

const std::vector<Experiment>& experiments();
// Throws std::invalid_argument naming the known ones.
const Experiment& find_experiment(const std::string& name);

}  // namespace rpclab::harness
