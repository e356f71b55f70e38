// Who makes the faults: tc netem on the host kernel, tc netem inside a
// user-mode-linux guest (for kernels without sch_netem), or nftables
// (loss and duplication, partitions and resets, on the host kernel).
// Which can apply what is a column of the field and event tables; which one
// a cell gets is chosen by netem/config/backend_choice.h, and the one that
// ran is written into every result.
#pragma once

#include <string>

#include "netem/faults/link_counters.h"
#include "netem/spec/backend_kind.h"
#include "netem/spec/fault_spec.h"
#include "netem/topology/topology.h"
#include "process/command_log.h"

namespace rpclab::netem {

// Steady faults on a link, wherever it is: between this kernel's
// namespaces (FaultBackend) or on a remote host's interface (remote_faults.h).
class LinkFaults {
 public:
  virtual ~LinkFaults() = default;
  virtual BackendKind kind() const = 0;
  virtual void apply(const FaultSpec& spec) = 0;        // steady faults; throws process::CommandError
  virtual LinkCounters read_counters() = 0;             // throws process::CommandError
  virtual std::string state() = 0;  // `tc -s qdisc show` / `nft list ruleset` of both ends
  virtual bool seed_applied() const = 0;  // Debian 12's tc and nft's numgen take no seed
};

// Applies faults to a two-host topology on the kernel this process runs on.
// kUmlNetem is not a FaultBackend: the harness runs the whole cell inside a
// guest (netem/topology/uml_guest.h) and uses kNetem there.
// The spec's steady faults are applied once by apply(); its timed events
// through an EventRunner (netem/events/event_runner.h), which uses this
// backend's tool, topology and commands log.
class FaultBackend : public LinkFaults {
 public:
  FaultBackend(const Topology& topology, process::CommandLog& log) : topology_(topology), log_(log) {}

  const Topology& topology() const { return topology_; }
  process::CommandLog& log() const { return log_; }

 protected:
  const Topology& topology_;
  process::CommandLog& log_;
};

}  // namespace rpclab::netem
