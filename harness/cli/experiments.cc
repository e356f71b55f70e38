#include "harness/cli/experiments.h"

#include <stdexcept>

#include "harness/dependability/dependability_experiment.h"
#include "harness/nfs/nfs_experiment.h"
#include "harness/speed/speed_experiment.h"

namespace rpclab::harness {

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> table = {dependability_experiment(), speed_experiment(), nfs_experiment()};
  return table;
}

const Experiment& find_experiment(const std::string& name) {
  std::string known;
  for (const Experiment& e : experiments()) {
    if (e.name == name) return e;
    known += (known.empty() ? "" : ", ") + e.name;
  }
  throw std::invalid_argument("unknown experiment '" + name + "' (known: " + known + ")");
}

}  // namespace rpclab::harness
