#include "harness/record/records_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>

namespace rpclab::harness {
namespace {

// The line's version, checked: a line that is not a record at all is
// skipped (std::invalid_argument); a newer record stops the reading.
void check_version(const nlohmann::json& line, const std::string& where) {
  if (!line.is_object() || !line.contains("version") || !line.contains("cell"))
    throw std::invalid_argument("not an rpclab record");
  const nlohmann::json& version = line.at("version");
  if (!version.is_number_integer() || version.get<int64_t>() < 1)
    throw std::invalid_argument("not an rpclab record: its version is " + version.dump());
  if (version.get<int64_t>() > kRecordVersion)
    throw RecordVersionError(fmt::format("{}: a record of version {}, and this build of rpclab reads records of "
                                         "version {} (and older); read it with the rpclab that wrote it, or a newer "
                                         "one",
                                         where, version.get<int64_t>(), kRecordVersion));
}

template <typename Record>
std::vector<Record> read_lines(const std::string& path, std::vector<std::string>* warnings) {
  std::vector<Record> records;
  std::ifstream in(path);
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    std::string where = path + ":" + std::to_string(line_no);
    try {
      nlohmann::json j = nlohmann::json::parse(line);
      check_version(j, where);
      records.push_back(j.get<Record>());
    } catch (const RecordVersionError&) {
      throw;
    } catch (const std::exception& e) {
      if (warnings) warnings->push_back(where + ": skipped, " + e.what());
    }
  }
  return records;
}

}  // namespace

void check_record_versions(const std::string& path) {
  std::ifstream in(path);
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    try {
      if (!j.is_discarded()) check_version(j, path + ":" + std::to_string(line_no));
    } catch (const RecordVersionError&) {
      throw;
    } catch (const std::invalid_argument&) {  // not a record: the readers skip it
    }
  }
}

std::vector<CellRecord> read_cell_records(const std::string& path, std::vector<std::string>* warnings) {
  return read_lines<CellRecord>(path, warnings);
}

std::vector<TrialRecord> read_trial_records(const std::string& path, std::vector<std::string>* warnings) {
  return read_lines<TrialRecord>(path, warnings);
}

std::vector<CellRecord> latest_per_cell(const std::vector<CellRecord>& records) {
  std::vector<CellRecord> latest;
  std::map<std::string, size_t> at;  // cell id -> index in latest
  for (const CellRecord& r : records) {
    auto [it, fresh] = at.try_emplace(r.cell.id(), latest.size());
    if (fresh)
      latest.push_back(r);
    else
      latest[it->second] = r;
  }
  std::stable_sort(latest.begin(), latest.end(), [](const CellRecord& a, const CellRecord& b) {
    return a.cell_index.value_or(0) < b.cell_index.value_or(0);
  });
  return latest;
}

}  // namespace rpclab::harness
