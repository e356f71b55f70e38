#include "harness/run/result_record.h"

#include <sys/utsname.h>
#include <time.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "netem/config/fault_config.h"
#include "netem/spec/fault_fields.h"

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

namespace {

void default_null(nlohmann::json& object, const std::vector<const char*>& keys) {
  for (const char* k : keys)
    if (!object.contains(k)) object[k] = nullptr;
}

nlohmann::json& object_at(nlohmann::json& record, const char* key) {
  if (!record.contains(key) || !record[key].is_object()) record[key] = nlohmann::json::object();
  return record[key];
}

}  // namespace

void add_promised_fields(nlohmann::json& r) {
  const nlohmann::json& cell = r.at("cell");
  if (r.value("experiment", "") == "dependability") {
    default_null(r, {"calls", "drc", "retry_timeout_ms", "levy_mismatches"});
    nlohmann::json& faults = object_at(r, "faults");
    bool impaired = !netem::is_empty(cell.at("faults").get<netem::FaultSpec>());
    if (!faults.contains("backend")) faults["backend"] = impaired ? "not chosen" : "none";
    if (!faults.contains("loss_pct")) faults["loss_pct"] = cell.at("faults").value("loss_pct", 0.0);
    if (!faults.contains("dup_pct")) faults["dup_pct"] = cell.at("faults").value("dup_pct", 0.0);
    default_null(faults, {"measured_loss_pct", "measured_dup_pct"});
    nlohmann::json& load = object_at(r, "load");
    if (!load.contains("hogs")) load["hogs"] = cell.value("hogs", 0);
    default_null(load, {"loadavg_1m", "run_queue_mean", "server_cpu_run_queue", "server_wait_us_per_timeslice"});
    default_null(object_at(r, "classes"), {"correct", "silent_loss", "duplicate_calls", "extra_executions",
                                            "silent_duplicates", "indeterminate", "clean_failure"});
    default_null(object_at(r, "silent_per_million"), {"value", "ci95_low", "ci95_high"});
  } else if (r.value("experiment", "") == "speed") {
    default_null(r, {"size", "trials", "calls_per_trial", "seconds_per_100_calls", "p50_us", "p90_us", "p99_us",
                     "p999_us", "max_us", "calls_per_s", "ratio_to_floor", "latency_pinned"});
    default_null(object_at(r, "cpu_us_per_call"), {"client", "server"});
  }
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

std::vector<nlohmann::json> latest_per_cell(const std::vector<nlohmann::json>& records) {
  std::vector<nlohmann::json> latest;
  std::map<std::string, size_t> at;  // cell id -> index in latest
  for (const nlohmann::json& r : records) {
    auto [it, fresh] = at.try_emplace(r.at("cell").dump(), latest.size());
    if (fresh)
      latest.push_back(r);
    else
      latest[it->second] = r;
  }
  std::stable_sort(latest.begin(), latest.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.value("cell_index", size_t{0}) < b.value("cell_index", size_t{0});
  });
  return latest;
}

}  // namespace rpclab::harness
