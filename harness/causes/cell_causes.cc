#include "harness/causes/cell_causes.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/atomic_file.h"
#include "server/journal_reader.h"
#include "harness/causes/attribution.h"
#include "harness/run/cell_failure.h"
#include "harness/causes/wire_record.h"
#include "sunrpc/sunrpc_settings.h"

namespace rpclab::harness {
namespace {

uint16_t port_of(const std::string& endpoint) {
  return static_cast<uint16_t>(std::stoul(endpoint.substr(endpoint.rfind(':') + 1)));
}

// The capture stopped and kept on disk; what went wrong instead, if anything.
std::string keep_wire(TrialCapture& capture, const CellFiles& files) {
  if (!capture.capture) return capture.missing;
  capture.capture->stop();
  if (!capture.capture->missing().empty()) return capture.capture->missing();
  try {
    write_file_atomically(files.path("wire.bin"), format_wire(capture.capture->wire()));
  } catch (const std::exception& e) {
    return fmt::format("wire.bin cannot be written: {}", e.what());
  }
  return "";
}

}  // namespace

std::set<std::pair<uint32_t, uint32_t>> recorded_calls(const std::vector<CallRecord>& records) {
  std::set<std::pair<uint32_t, uint32_t>> recorded;
  for (size_t k = 0; k < records.size(); ++k)
    for (const CallEntry& c : records[k].calls) recorded.insert({static_cast<uint32_t>(k + 1), c.seq});
  return recorded;
}

std::vector<Execution> recorded_executions(const std::string& journal_path, const std::vector<CallRecord>& records) {
  std::set<std::pair<uint32_t, uint32_t>> recorded = recorded_calls(records);
  std::vector<Execution> out = journal_executions(journal_path);
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const Execution& e) { return !recorded.count({e.client_id, e.seq}); }),
            out.end());
  return out;
}

std::map<std::pair<uint32_t, uint32_t>, uint32_t> app_attempts(const std::vector<CallRecord>& records) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> out;
  for (size_t k = 0; k < records.size(); ++k)
    for (const CallEntry& c : records[k].calls)
      if (c.attempts > 1) out[{static_cast<uint32_t>(k + 1), c.seq}] = c.attempts;
  return out;
}

std::vector<Execution> journal_executions(const std::string& journal_path) {
  std::vector<Execution> out;
  for (const journal::Record& r : read_journal_records(journal_path)) {
    if (r.kind != static_cast<uint8_t>(journal::RecordKind::kExecuted)) continue;
    int64_t arrival = (r.known & journal::kKnowsKernelArrival) ? r.realtime_ns : 0;
    out.push_back({r.client_id, r.seq, r.known, r.request_id, r.peer_port, r.attempt, arrival});
  }
  return out;
}

void set_client_model(const CellConfig& cell, AttributionInput& in) {
  in.drains_stale_replies = cell.settings.on(sunrpc::kDrainStaleReplies);
  in.retransmit_ms = in.timeout_ms = 0;
  if (const TransportRow* row = find_transport(cell.transport); row) {
    ClientSettings s = row->client_settings(cell.client_options());
    in.retransmit_ms = std::max(s.retry_timeout_ms, 0);
    in.timeout_ms = std::max(s.timeout_ms, 0);
  }
}

TrialCapture start_capture(const CellConfig& cell, const std::string& choice, const ClientEnd& client,
                           const std::string& server_endpoint, process::CommandLog& log) {
  if (!client.host) return {nullptr, client.why_not};
  const TransportRow* row = find_transport(cell.transport);
  if (!row || !row->traits.wire_xid) return {nullptr, "this transport's requests carry no XID a capture can follow"};
  if (client.host->netns.empty())
    return {nullptr, fmt::format("{}: rpclab puts no capture rules on the host's own lo", client.why_not)};
  if (choice == "off") return {nullptr, "turned off (--wire-capture off)"};
  auto capture = std::make_unique<WireCapture>(*client.host, server_endpoint.substr(0, server_endpoint.rfind(':')),
                                               port_of(server_endpoint), choice, log);
  std::string missing = capture->missing();
  if (!missing.empty()) return {nullptr, missing};
  return {std::move(capture), ""};
}

CausesRecord trial_causes(const CellConfig& cell, TrialCapture& capture, const CellFiles& files,
                          const ClientResults& clients, uint64_t extra_executions) {
  AttributionInput in;
  set_client_model(cell, in);
  std::string missing = keep_wire(capture, files);
  if (missing.empty()) in.wire = capture.capture->wire();
  in.executions = recorded_executions(journal_in(files.dir), clients.records);
  in.app_attempts = app_attempts(clients.records);
  Attribution a = attribute(in);
  if (a.extra_executions != extra_executions)
    throw CellFailure(fmt::format("the attribution found {} extra executions in the journal, the join {}",
                                  a.extra_executions, extra_executions));
  CausesRecord c;
  c.counts = a.counts;
  c.cascades = a.cascades;
  c.capture = missing.empty() ? capture.capture->backend() : "none: " + missing;
  c.capture_packets = in.wire ? MaybeNull<uint64_t>::of(in.wire->packets.size()) : MaybeNull<uint64_t>::null();
  c.capture_drops = in.wire ? MaybeNull<uint64_t>::of(in.wire->drops) : MaybeNull<uint64_t>::null();
  return c;
}

}  // namespace rpclab::harness
