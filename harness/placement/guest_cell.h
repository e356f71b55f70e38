// The uml-netem backend: a whole trial (namespaces, netem, server, clients)
// runs inside a user-mode-linux guest, because this kernel has no sch_netem
// and the guest's has. The cell travels in as JSON and the trial's record
// comes back as a file through hostfs. Inside, `rpclab cell` runs the
// trial runner it is given: this file knows no experiment.
#pragma once

#include <functional>
#include <string>

#include "harness/record/trial_record.h"
#include "harness/run/experiment.h"
#include "netem/faults/fault_backend.h"

namespace rpclab::harness {

// On the host: boots the guest for one trial and puts what it measured
// into `trial`. Throws CellFailure when the guest gave no record.
void run_trial_in_guest(const CellConfig& cell, const TrialPlace& place, const netem::Choice& choice,
                        CellEnvironment& env, process::CommandLog& log, TrialRecord& trial);

// Inside the guest: `rpclab cell --spec FILE --result FILE --trial K`
// runs that trial with the runner of the cell's experiment (`experiment_of`
// finds its row), guarded like every trial (trial_run.h).
struct GuestTrial {
  std::string spec_path, result_path, run_id, bin_dir;
  uint32_t trial = 1, trials = 1;
  size_t cell_index = 1;
};
int run_cell_command(const GuestTrial& what,
                     const std::function<const Experiment*(const CellConfig&)>& experiment_of);

}  // namespace rpclab::harness
