// What a cell runner needs from the run around it.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "harness/record/cell_config.h"
#include "harness/run/progress.h"
#include "netem/topology/capabilities.h"
#include "process/command_log.h"

namespace rpclab::harness {

class Placement;  // placement/placement.h

// How a run places its trials on another machine: set by the command when
// --server-host is given (remote/remote_placement.h); unset, trials run on
// this kernel.
using RemotePlacements = std::function<std::unique_ptr<Placement>(const CellConfig& cell, process::CommandLog& log)>;

struct CellEnvironment {
  std::string run_id;
  std::string bin_dir;                    // rpclab-server, rpclab-client, rpclab (this program)
  netem::Capabilities caps;
  const std::atomic<bool>* stop = nullptr;
  Progress* progress = nullptr;           // null inside a guest
  bool inside_guest = false;              // running a cell handed in by the host
  int cell_time_limit_s = 300;
  std::string wire_capture = "on";        // dependability: --wire-capture (WireCapture::kChoices)
  bool latency_pinned = false;            // speed: /dev/cpu_dma_latency held at 0 for the run
  // --server-host (and --client-host): how a trial is placed there; unset:
  // on this kernel.
  RemotePlacements remote;
};

}  // namespace rpclab::harness
