#include "harness/record/records_file.h"

#include <fmt/format.h>

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

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

// A record is a few levels deep; a line nested deeper is damage (or a
// hostile file), and refusing it here keeps nlohmann's recursive dump and
// comparison from running off the stack on it.
constexpr int kMaxRecordDepth = 64;

nlohmann::json parse_record_line(const std::string& line) {
  return nlohmann::json::parse(line, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxRecordDepth)
      throw std::invalid_argument(fmt::format("not an rpclab record: nested deeper than {} levels", kMaxRecordDepth));
    return true;
  });
}

// The file, or its gzip'd copy beside it when the file itself is absent: a
// run shipped with the docs (docs/results/runs/) keeps its records as
// results.jsonl.gz, read in place. An absent file reads as empty, as an
// ifstream of it would.
std::unique_ptr<std::istream> open_records(const std::string& path) {
  if (std::filesystem::exists(path) || !std::filesystem::exists(path + kShippedSuffix))
    return std::make_unique<std::ifstream>(path);
  std::string gz = path + kShippedSuffix;
  gzFile file = gzopen(gz.c_str(), "rb");
  if (!file) throw std::runtime_error(gz + ": cannot be opened");
  std::string text;
  char buffer[1 << 16];
  int n;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  int error = 0;
  std::string message = n < 0 ? gzerror(file, &error) : "";
  gzclose(file);
  if (n < 0) throw std::runtime_error(gz + ": not a whole gzip file (" + message + ")");
  return std::make_unique<std::istringstream>(std::move(text));
}

template <typename Record>
std::vector<Record> read_lines(const std::string& path, std::vector<std::string>* warnings) {
  std::vector<Record> records;
  std::unique_ptr<std::istream> stream = open_records(path);
  std::istream& in = *stream;
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    std::string where = path + ":" + std::to_string(line_no);
    try {
      nlohmann::json j = parse_record_line(line);
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

bool records_present(const std::string& path) {
  return std::filesystem::exists(path) || std::filesystem::exists(path + kShippedSuffix);
}

void check_record_versions(const std::string& path) {
  std::unique_ptr<std::istream> stream = open_records(path);
  std::istream& in = *stream;
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    try {
      nlohmann::json j = parse_record_line(line);
      check_version(j, path + ":" + std::to_string(line_no));
    } catch (const RecordVersionError&) {
      throw;
    } catch (const std::exception&) {  // not a record (or not JSON): the readers skip it
    }
  }
}

std::vector<CellRecord> read_cell_records(const std::string& path, std::vector<std::string>* warnings) {
  return read_lines<CellRecord>(path, warnings);
}

std::vector<TrialRecord> read_trial_records(const std::string& path, std::vector<std::string>* warnings) {
  return read_lines<TrialRecord>(path, warnings);
}

bool any_trial_finished(const std::string& run_dir) {
  for (const char* name : {"/results.jsonl", "/trials.jsonl"}) {
    std::unique_ptr<std::istream> stream = open_records(run_dir + name);
    std::istream& in = *stream;
    for (std::string line; std::getline(in, line);)
      if (line.find_first_not_of(" \t\r") != std::string::npos) return true;
  }
  return false;
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
