#include "harness/result_record.h"

#include <sys/utsname.h>
#include <time.h>

#include <fstream>

namespace rpclab::harness {

std::string iso8601_now() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  tm utc;
  gmtime_r(&ts.tv_sec, &utc);
  char buf[64];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  return std::string(buf) + "." + std::to_string(ts.tv_nsec / 1000000 + 1000).substr(1) + "Z";
}

nlohmann::json base_record(const CellConfig& cell, const std::string& run_id) {
  utsname u{};
  uname(&u);
  const TransportRow* row = find_transport(cell.transport);
  ClientSettings settings = row ? row->client_settings(cell.client_options()) : ClientSettings{};
  return {{"version", kRecordVersion},
          {"experiment", cell.experiment},
          {"run_id", run_id},
          {"cell", cell.to_json()},
          {"label", cell.label()},
          {"transport", cell.transport},
          {"topology", netem::topology_name(cell.topology)},
          {"connect", std::string(connect_mode_name(cell.connect))},
          {"clients", cell.clients},
          {"library", settings.library},
          {"timeout_ms", settings.timeout_ms},
          {"timeout_is_default", settings.timeout_is_default},
          {"kernel", std::string(u.sysname) + " " + u.release},
          {"status", "ok"},
          {"reason", ""}};
}

void mark(nlohmann::json& record, const std::string& status, const std::string& reason) {
  record["status"] = status;
  record["reason"] = reason;
}

std::vector<nlohmann::json> read_records(const std::string& path, std::vector<std::string>* warnings) {
  std::vector<nlohmann::json> records;
  std::ifstream in(path);
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    try {
      nlohmann::json record = nlohmann::json::parse(line);
      if (!record.is_object() || !record.contains("version") || !record.contains("cell"))
        throw std::invalid_argument("not an rpclab record");
      records.push_back(std::move(record));
    } catch (const std::exception& e) {
      if (warnings) warnings->push_back(path + ":" + std::to_string(line_no) + ": skipped, " + e.what());
    }
  }
  return records;
}

}  // namespace rpclab::harness
