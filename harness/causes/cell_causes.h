// A dependability trial's causes: the wire capture started around its
// clients where the cell allows one (a two-host link, or a loopback cell in
// a namespace of its own), and afterwards the attribution
// (attribution.h) of the trial's extra executions, as the trial record's
// `causes` object (docs/results-format.md).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/cell_config.h"
#include "harness/placement/cell_processes.h"
#include "harness/placement/placement.h"
#include "harness/causes/attribution.h"
#include "harness/record/causes.h"
#include "harness/causes/wire_capture.h"
#include "netem/topology/topology.h"

namespace rpclab::harness {

struct TrialCapture {
  std::unique_ptr<WireCapture> capture;
  std::string missing;  // why there is none, when there is none
};

// Every executed NEXT call in a journal, in its order, as the attribution reads it.
std::vector<Execution> journal_executions(const std::string& journal_path);

// The (client, seq) the clients recorded: a call in flight when a client
// was stopped ran but is in no record, and the join (extra_executions)
// counts only recorded calls.
std::set<std::pair<uint32_t, uint32_t>> recorded_calls(const std::vector<CallRecord>& records);
// The executed NEXT calls of the journal that a client recorded.
std::vector<Execution> recorded_executions(const std::string& journal_path, const std::vector<CallRecord>& records);
// (client, seq) -> the application's attempts, for calls it made more than once.
std::map<std::pair<uint32_t, uint32_t>, uint32_t> app_attempts(const std::vector<CallRecord>& records);

// The client the replay models, as the cell set it up: --drain, and the
// retransmit interval and total time per call as the client resolves
// them (the library's defaults where the cell set none; 0 for a transport
// that never retransmits).
void set_client_model(const CellConfig& cell, AttributionInput& in);

// Starts the capture on the client's end of the link (a two-host veth, or
// the lo of a loopback cell's own namespace) for a transport whose
// datagrams lead with their XID, with `choice` (--wire-capture, not
// "off"); otherwise says why not. A client on the host's own lo, or on
// another machine, gets none (rpclab puts no rules on the host's
// interfaces): `client.why_not` says why it is there.
TrialCapture start_capture(const CellConfig& cell, const std::string& choice, const ClientEnd& client,
                           const std::string& server_endpoint, process::CommandLog& log);

// Stops the capture, writes `wire.bin`, and attributes every execution in
// the trial's journal beyond its call's first. Throws CellFailure when the
// causes do not add up to the join's `extra_executions`.
CausesRecord trial_causes(const CellConfig& cell, TrialCapture& capture, const CellFiles& files,
                          const ClientResults& clients, uint64_t extra_executions);

}  // namespace rpclab::harness
