#include "harness/causes/causes_report.h"

#include "harness/causes/attribution.h"

namespace rpclab::harness {
namespace {

// "12: copy 10, rexmit 2": how many cascades, and what started them.
std::string cascades_cell(const nlohmann::json& causes) {
  Cascades c = Cascades::from_json(causes);
  if (c.count == 0) return causes.contains("cascades") ? "0" : "";
  std::string out = grouped(c.count) + ":";
  const char* sep = " ";
  for (const CauseRow& row : cause_rows())
    if (c.started_by[row.cause]) {
      out += sep + std::string(row.column) + " " + grouped(c.started_by[row.cause]);
      sep = ", ";
    }
  return out;
}

}  // namespace

TextTable causes_table(const std::vector<nlohmann::json>& records) {
  std::vector<std::string> headers = {"cell", "extra exec"};
  for (const CauseRow& row : cause_rows()) headers.emplace_back(row.column);
  headers.emplace_back("cascades");
  headers.emplace_back("capture");
  TextTable t(headers);
  for (const nlohmann::json& r : records) {
    if (r.value("experiment", "") != "dependability" || r.value("status", "") != "ok") continue;
    if (!r.contains("causes") || !r.at("causes").is_object()) continue;
    uint64_t extra = r.at("classes").value("extra_executions", uint64_t{0});
    if (extra == 0) continue;
    CauseCounts c = CauseCounts::from_json(r.at("causes"));
    std::vector<std::string> row = {r.value("label", ""), grouped(extra)};
    for (const CauseRow& cause : cause_rows()) row.push_back(grouped(c[cause.cause]));
    row.push_back(cascades_cell(r.at("causes")));
    row.push_back(r.at("causes").value("capture", ""));
    t.add(row);
  }
  return t;
}

}  // namespace rpclab::harness
