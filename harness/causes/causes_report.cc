#include "harness/causes/causes_report.h"

namespace rpclab::harness {
namespace {

// "12: copy 10, rexmit 2": how many cascades, and what started them
// ("" for records from before cascades were counted).
std::string cascades_cell(const CausesRecord& causes) {
  if (!causes.cascades) return "";
  const Cascades& c = *causes.cascades;
  if (c.count == 0) return "0";
  std::string out = grouped(c.count) + ":";
  const char* sep = " ";
  for (const CauseRow& row : cause_rows())
    if (c.started_by[row.cause]) {
      out += sep + std::string(row.column) + " " + grouped(c.started_by[row.cause]);
      sep = ", ";
    }
  return out;
}

// The causes a table shows: every one single-server cells can have, and a
// path's only where some cell counted it.
std::vector<CauseRow> shown_causes(const std::vector<CellRecord>& records) {
  std::vector<CauseRow> shown;
  for (const CauseRow& row : cause_rows()) {
    bool seen = !row.path_only;
    for (const CellRecord& r : records)
      seen = seen || (r.dependability.causes && r.dependability.causes->counts[row.cause] > 0);
    if (seen) shown.push_back(row);
  }
  return shown;
}

}  // namespace

TextTable causes_table(const std::vector<CellRecord>& records) {
  std::vector<CauseRow> shown = shown_causes(records);
  std::vector<std::string> headers = {"cell", "extra exec"};
  for (const CauseRow& row : shown) headers.emplace_back(row.column);
  headers.emplace_back("cascades");
  headers.emplace_back("capture");
  TextTable t(headers);
  for (const CellRecord& r : records) {
    const DependabilityCell& d = r.dependability;
    if (!r.is("dependability") || !r.ok() || !d.causes.has_value()) continue;
    uint64_t extra = d.classes ? d.classes->extra_executions : 0;
    if (extra == 0) continue;
    const CausesRecord& c = *d.causes;
    std::vector<std::string> row = {r.label, grouped(extra)};
    for (const CauseRow& cause : shown) row.push_back(grouped(c.counts[cause.cause]));
    row.push_back(cascades_cell(c));
    row.push_back(c.capture);
    t.add(row);
  }
  return t;
}

}  // namespace rpclab::harness
