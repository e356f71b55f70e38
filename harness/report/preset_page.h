// `rpclab presets` and docs/presets.md: what each preset of an experiment
// runs, described from its cells. Each preset is planned the way a run
// plans it (the experiment's own flags with --preset NAME, then plan()),
// so the description cannot drift from what `make run-dependability`
// runs: one table per preset, a column per table of the preset, a row per
// axis (transports, load, faults, clients, calls, trials, ...).
#pragma once

#include <string>

#include "harness/run/experiment.h"

namespace rpclab::harness {

// Every preset of `experiment`, as text for the terminal or as Markdown
// (headed by the experiment and preset names). Planned as root: a preset's
// two-host cells are described, whoever asks. Throws std::runtime_error
// when a preset does not plan (a defect of the preset).
std::string presets_reference(const Experiment& experiment, bool markdown);

}  // namespace rpclab::harness
