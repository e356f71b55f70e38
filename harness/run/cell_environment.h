// What a cell runner needs from the run around it.
#pragma once

#include <atomic>
#include <string>

#include "harness/run/progress.h"
#include "netem/topology/capabilities.h"
#include "process/command_log.h"

namespace rpclab::harness {

class RemoteSession;

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
  RemoteSession* remote = nullptr;        // --server-host: the server runs there, the clients here
  RemoteSession* remote_clients = nullptr;  // --client-host: ... or the clients there
};

}  // namespace rpclab::harness
