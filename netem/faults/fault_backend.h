// Who makes the faults: tc netem on the host kernel, tc netem inside a
// user-mode-linux guest (for kernels without sch_netem), or nftables
// (loss and duplication, partitions and resets, on the host kernel).
// Which can apply what is a column of the field and event tables. The one
// that ran is written into every result.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netem/faults/backend_kind.h"
#include "netem/topology/capabilities.h"
#include "process/command_log.h"
#include "netem/faults/fault_spec.h"
#include "netem/topology/topology.h"

namespace rpclab::netem {

std::string backend_name(BackendKind kind);  // "none" | "netem" | "uml-netem" | "nftables"
// The names above; "auto" is not a kind (choose_backend resolves it).
std::optional<BackendKind> parse_backend(const std::string& name);

// Packets in one direction of the link, cumulative since apply().
struct DirectionCounters {
  uint64_t offered = 0;     // handed to the link by the sender's stack
  uint64_t dropped = 0;     // removed by the fault backend
  uint64_t duplicated = 0;  // extra copies the backend made
  uint64_t delivered = 0;   // arrived at the receiver
  uint64_t bytes_delivered = 0;
};

struct LinkCounters {
  DirectionCounters to_server, to_client;
  std::string source;  // what was read, e.g. "nft rule counters" or "tc -s qdisc + nstat"
  nlohmann::json to_json() const;
};

struct Choice {
  BackendKind kind = BackendKind::kNone;
  std::string reason;  // why this one ("host kernel has no sch_netem; spec asks only loss/dup")
};

// `requested` is "auto", "netem", "uml-netem" or "nftables". An empty spec
// needs no backend (kNone). Throws SpecError when the requested backend
// cannot do what the spec asks (nftables with delay) or is not available
// here, saying what is missing and how to get it.
Choice choose_backend(const std::string& requested, const FaultSpec& spec, const Capabilities& caps);
// Throws SpecError when `requested` could not apply `spec` on any machine
// (nftables asked to delay): a usage error, found before any cell runs.
void check_backend_can_apply(const std::string& requested, const FaultSpec& spec);

// Applies faults to a two-host topology on the kernel this process runs on.
// kUmlNetem is not a FaultBackend: the harness runs the whole cell inside a
// guest (netem/topology/uml_guest.h) and uses kNetem there.
// The spec's steady faults are applied once by apply(); its timed events
// through an EventRunner (event_runner.h), which uses this backend's tool,
// topology and commands log.
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

class FaultBackend : public LinkFaults {
 public:
  FaultBackend(const Topology& topology, process::CommandLog& log) : topology_(topology), log_(log) {}

  const Topology& topology() const { return topology_; }
  process::CommandLog& log() const { return log_; }

 protected:
  const Topology& topology_;
  process::CommandLog& log_;
};

// What happened on the link over the directions the spec impairs: loss as
// a percentage of what the link carried (offered + copies, since copies can
// be lost too), duplication as a percentage of what the senders offered.
struct MeasuredFaults {
  double loss_pct = 0;
  double dup_pct = 0;
  uint64_t offered = 0;
};
MeasuredFaults measure(const LinkCounters& before, const LinkCounters& after, Direction direction);

}  // namespace rpclab::netem
