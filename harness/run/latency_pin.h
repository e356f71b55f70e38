// Holds /dev/cpu_dma_latency at 0 for as long as it lives, as latency tuning
// tools do: on a VM an idle CPU's wake-up otherwise adds ~100 us to every
// call. The kernel drops the request when the file is closed, so nothing
// outlives the run.
#pragma once

#include <memory>
#include <string>

#include "harness/record/run_metadata.h"
#include "harness/run/cell_environment.h"
#include "harness/run/experiment.h"

namespace rpclab::harness {

class DmaLatencyHold {
 public:
  DmaLatencyHold();
  ~DmaLatencyHold();
  DmaLatencyHold(const DmaLatencyHold&) = delete;
  DmaLatencyHold& operator=(const DmaLatencyHold&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::string& why_not() const { return why_not_; }  // when not held

 private:
  int fd_ = -1;
  std::string why_not_;
};

// An experiment's RunHold (experiment.h) for timing: /dev/cpu_dma_latency
// held at 0 while the run lasts, said in `env`, in the run's metadata and
// on stderr (`command` names who says it: "rpclab speed").
std::unique_ptr<RunHold> hold_latency_for_timing(CellEnvironment& env, RunMetadata& metadata,
                                                 const std::string& command);

}  // namespace rpclab::harness
