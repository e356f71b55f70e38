#include "harness/dependability/cell_words.h"

#include <fmt/format.h>

#include "harness/kit/text_table.h"
#include "netem/config/fault_config.h"
#include "netem/spec/fault_fields.h"
#include "transport/settings_table.h"
#include "transport/transport.h"

namespace rpclab::harness {

std::string told_failed_share(const CellRecord& record) {
  ClassCounts c = record.dependability.classes.value_or(ClassCounts{});
  uint64_t told = c.ran_but_told_failed();
  if (!told || !c.calls) return "";
  double pct = 100.0 * static_cast<double>(told) / static_cast<double>(c.calls);
  return fixed(pct, pct < 10 ? 1 : 0) + "%";
}

bool has_events(const CellRecord& record) { return !record.cell.config.faults.events.empty(); }

bool has_faults(const CellRecord& record) {
  // The faults table's own control cell (loss 0, dup 0 on the link) belongs
  // with the faults table, not in the load table.
  return record.cell.config.block == "faults" || !netem::is_empty(record.cell.config.faults);
}

namespace {

// The library's own retransmit interval, "15 s" for libtirpc's.
std::string default_retry(const TransportRow& row) {
  ClientOptions defaults;
  defaults.transport = std::string(row.name);
  int ms = row.client_settings(defaults).retry_timeout_ms;
  return ms % 1000 == 0 ? fmt::format("{} s", ms / 1000) : fmt::format("{} ms", ms);
}

}  // namespace

std::string row_variant(const CellRecord& record, bool with_clients) {
  const CellConfig& c = record.cell.config;
  std::string v = c.transport;
  const TransportRow* row = find_transport(v);
  if (row && row->traits.retransmits) {  // the retransmit interval is part of what the row measures
    auto retry = c.settings.get(kRetryTimeout);
    v += retry ? fmt::format(" retry {} ms", *retry) : fmt::format(" retry {}", default_retry(*row));
  }
  v += row_words(c.settings);  // " +drc +drain": each setting the cell set
  // "+app:5", "+library retry": the client's retry policy, apart from
  // sunrpc-udp's retransmit interval ("retry 20 ms") above.
  if (c.retry.policy == RetryPolicy::kApp) v += " +" + c.retry.name();
  if (c.retry.policy == RetryPolicy::kLibrary) v += " +library retry";
  if (c.at_most_once) v += " +at-most-once";
  if (c.connect == ConnectMode::kPerCall) v += " per-call";
  if (with_clients && c.clients > 1) v += fmt::format(" x{} clients", c.clients);
  return v;
}

std::string condition_words(const CellRecord& r) {
  const CellConfig& c = r.cell.config;
  std::string out;
  if (!c.faults.events.empty()) {
    for (const netem::FaultEvent& e : c.faults.events) {
      std::string kind = e.kind ? e.kind->name : "?";
      if (out.find(kind) == std::string::npos) out += (out.empty() ? "" : "+") + kind;
    }
  } else if (!netem::is_empty(c.faults)) {
    out = netem::summary(c.faults);
  }
  if (c.hogs) out += (out.empty() ? "" : ", ") + fmt::format("load {}", c.hogs);
  return out.empty() ? "no faults" : out;
}

std::string cell_name(const CellRecord& r) { return row_variant(r) + " under " + condition_words(r); }

}  // namespace rpclab::harness
