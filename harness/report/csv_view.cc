#include "harness/report/csv_view.h"

#include <map>
#include <set>

namespace rpclab::harness {
namespace {

using nlohmann::json;

// Columns a person looks for first; the rest follow alphabetically.
const std::vector<std::string> kLeading = {"experiment", "label", "transport", "topology", "connect", "clients",
                                           "size", "status", "reason"};

const std::set<std::string> kLeftOut = {"cell", "faults.counters_before", "faults.counters_after", "faults.spec",
                                        "trial_means_us"};

void flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (kLeftOut.count(prefix)) return;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (j.is_string()) {
    out.emplace_back(prefix, j.get<std::string>());
  } else if (j.is_null()) {
    out.emplace_back(prefix, "");
  } else {
    out.emplace_back(prefix, j.dump());
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? "\"\"" : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string records_to_csv(const std::vector<CellRecord>& records,
                           const std::function<json(const CellRecord&)>& derived) {
  std::vector<json> objects;
  for (const CellRecord& r : records) {
    json j = r;  // as results.jsonl holds it
    if (derived) j.merge_patch(derived(r));
    objects.push_back(std::move(j));
  }
  return csv_of(objects);
}

std::string csv_of(const std::vector<json>& objects) {
  std::vector<std::vector<std::pair<std::string, std::string>>> flat;
  std::set<std::string> present;
  for (const json& r : objects) {
    flatten(r, "", flat.emplace_back());
    for (const auto& field : flat.back()) present.insert(field.first);
  }
  std::vector<std::string> columns;
  std::set<std::string> known;
  for (const std::string& k : kLeading)
    if (present.count(k)) columns.push_back(k), known.insert(k);
  std::vector<std::map<std::string, std::string>> rows;
  for (const auto& fields : flat) {
    std::map<std::string, std::string> row;
    for (auto& [k, v] : fields) {
      if (known.insert(k).second) columns.push_back(k);
      row[k] = v;
    }
    rows.push_back(std::move(row));
  }
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_field(columns[i]);
  out += "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < columns.size(); ++i) {
      auto it = row.find(columns[i]);
      out += (i ? "," : "") + (it == row.end() ? "" : csv_field(it->second));
    }
    out += "\n";
  }
  return out;
}

}  // namespace rpclab::harness
