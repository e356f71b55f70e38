#include "harness/dependability_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "core/transport.h"
#include "harness/text_table.h"
#include "netem/fault_spec.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

bool usable(const json& r) { return r.value("experiment", "") == "dependability" && r.value("status", "") == "ok"; }

std::string rate_cell(const json& r) {
  const json& s = r.at("silent_per_million");
  double v = s.value("value", 0.0), hi = s.value("ci95_high", 0.0), lo = s.value("ci95_low", 0.0);
  if (v == 0) return fmt::format("0 (<{:.0f})", hi);
  return fmt::format("{:.0f} [{:.0f}-{:.0f}]", v, lo, hi);
}

template <typename Key>
void add_unique(std::vector<Key>& seen, const Key& k) {
  if (std::find(seen.begin(), seen.end(), k) == seen.end()) seen.push_back(k);
}

std::string fault_column(const json& r) {
  const json& spec = r.at("cell").at("faults");
  return fmt::format("loss {}% dup {}%", spec.value("loss_pct", 0.0), spec.value("dup_pct", 0.0));
}

// Levy's 1989 dependability rows, keyed by his load column, from the CSV.
std::vector<std::pair<std::string, std::vector<std::string>>> levy_rows(const std::string& data_dir) {
  std::ifstream in(data_dir + "/levy1989-dependability.csv");
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  bool header_seen = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (!header_seen) {
      header_seen = true;
      continue;
    }
    std::stringstream fields(line);
    std::string name, cell;
    std::getline(fields, name, ',');
    std::vector<std::string> cells;
    while (std::getline(fields, cell, ',')) cells.push_back(cell.empty() ? "-" : cell);
    rows.emplace_back(name + " (Levy 1989)", cells);
  }
  return rows;
}

std::string load_table(const std::vector<json>& records, const std::string& data_dir) {
  std::vector<int> hogs;
  std::vector<std::string> variants;
  std::map<std::pair<std::string, int>, const json*> cell;
  std::map<int, std::vector<double>> run_queue;
  for (const json& r : records) {
    if (!usable(r) || has_faults(r)) continue;
    int h = r.at("cell").value("hogs", 0);
    add_unique(hogs, h);
    add_unique(variants, row_variant(r));
    cell[{row_variant(r), h}] = &r;
    run_queue[h].push_back(r.at("load").value("run_queue_mean", 0.0));
  }
  if (variants.empty()) return "";
  std::sort(hogs.begin(), hogs.end());
  std::vector<std::string> headers = {"silent errors per 1,000,000 calls"};
  for (int h : hogs) headers.push_back(fmt::format("load {} hogs", h));
  TextTable t(headers);
  for (const std::string& v : variants) {
    std::vector<std::string> row = {v};
    for (int h : hogs) row.push_back(cell.count({v, h}) ? rate_cell(*cell[{v, h}]) : "-");
    t.add(row);
  }
  std::vector<std::string> measured = {"measured run queue (mean)"};
  for (int h : hogs) {
    const auto& q = run_queue[h];
    double mean = q.empty() ? 0 : std::accumulate(q.begin(), q.end(), 0.0) / static_cast<double>(q.size());
    measured.push_back(fixed(mean, 1));
  }
  t.add(measured);
  auto levy = levy_rows(data_dir);
  if (!levy.empty()) {
    t.rule();
    for (auto& [name, cells] : levy) {
      std::vector<std::string> row = {name};
      for (size_t i = 0; i < hogs.size(); ++i) {
        // Levy's columns are load averages ~0.1, 5, 10, 20: hogs 0, 5, 10, 20.
        static const std::vector<int> kLevyLoads = {0, 5, 10, 20};
        auto it = std::find(kLevyLoads.begin(), kLevyLoads.end(), hogs[i]);
        size_t col = static_cast<size_t>(it - kLevyLoads.begin());
        row.push_back(it != kLevyLoads.end() && col < cells.size() ? cells[col] : "");
      }
      t.add(row);
    }
  }
  return "Dependability (Levy's layout): silent errors = silent losses + calls run twice that the client saw succeed;\n"
         "value [95% Wilson interval]; 0 (<N): none seen, N the upper end of the same two-sided interval.\n\n" +
         t.render();
}

std::string faults_table(const std::vector<json>& records) {
  std::vector<std::string> columns, variants;
  std::map<std::pair<std::string, std::string>, const json*> cell;
  for (const json& r : records) {
    if (!usable(r) || !has_faults(r) || r.at("cell").value("hogs", 0) != 0) continue;
    add_unique(columns, fault_column(r));
    add_unique(variants, row_variant(r));
    cell[{row_variant(r), fault_column(r)}] = &r;
  }
  if (variants.empty()) return "";
  std::vector<std::string> headers = {"silent errors per 1,000,000 calls"};
  headers.insert(headers.end(), columns.begin(), columns.end());
  TextTable t(headers);
  std::map<std::string, std::string> measured;
  for (const std::string& v : variants) {
    std::vector<std::string> row = {v};
    for (const std::string& c : columns) {
      const json* r = cell.count({v, c}) ? cell[{v, c}] : nullptr;
      row.push_back(r ? rate_cell(*r) : "-");
      if (r && !measured.count(c) && !r->at("faults").value("measured_loss_pct", json()).is_null())
        measured[c] = fmt::format("{:.1f}/{:.1f} {}", r->at("faults").value("measured_loss_pct", 0.0),
                                  r->at("faults").value("measured_dup_pct", 0.0),
                                  r->at("faults").value("backend", ""));
    }
    t.add(row);
  }
  std::vector<std::string> row = {"measured loss%/dup% (backend)"};
  for (const std::string& c : columns) row.push_back(measured.count(c) ? measured[c] : "-");
  t.add(row);
  return "Dependability under network faults (load 0, two-host link):\n\n" + t.render();
}

std::string classes_table(const std::vector<json>& records) {
  TextTable t({"cell", "calls", "correct", "silent loss", "dup calls", "extra exec", "silent dup", "indeterm.",
               "clean fail", "Levy mism.", "silent/M [95%]", "calls/s"});
  std::string skipped;
  for (const json& r : records) {
    if (r.value("experiment", "") != "dependability") continue;
    if (r.value("status", "") != "ok") {
      skipped += fmt::format("  {} {}: {}\n", r.value("status", ""), r.value("label", ""), r.value("reason", ""));
      continue;
    }
    const json& c = r.at("classes");
    auto n = [&](const char* k) { return grouped(c.value(k, uint64_t{0})); };
    t.add({r.value("label", ""), grouped(r.value("calls", uint64_t{0})), n("correct"), n("silent_loss"),
           n("duplicate_calls"), n("extra_executions"), n("silent_duplicates"), n("indeterminate"),
           n("clean_failure"), grouped(r.value("levy_mismatches", uint64_t{0})), rate_cell(r),
           fixed(r.value("calls_per_s", 0.0), 0)});
  }
  std::string out = t.empty() ? "" : "Every call, by class:\n\n" + t.render();
  if (!skipped.empty()) out += "\nCells not measured:\n" + skipped;
  return out;
}

// Silent errors that all came from a few of a cell's clients are one event
// each, not thousands: one late UDP reply makes every later call of that
// client run twice, so its calls are not independent and the interval,
// which assumes they are, is too narrow.
std::string concentration_notes(const std::vector<json>& records) {
  std::string out;
  for (const json& r : records) {
    if (!usable(r) || !r.at("classes").contains("clients_with_silent_errors")) continue;
    const json& c = r.at("classes");
    uint64_t silent = c.value("silent_loss", uint64_t{0}) + c.value("silent_duplicates", uint64_t{0});
    uint64_t affected = c.value("clients_with_silent_errors", uint64_t{0});
    uint64_t clients = r.value("clients", uint64_t{1});
    if (silent == 0 || clients < 2 || affected * 2 > clients) continue;
    out += fmt::format("  {}: {} silent errors, all from {} of {} clients\n", r.value("label", ""),
                       grouped(silent), affected, clients);
  }
  if (out.empty()) return "";
  return "Silent errors from few clients (one client's calls are not independent: after one late UDP reply\n"
         "every later call can run twice; read these as events, the 95% intervals are too narrow):\n" + out;
}

}  // namespace

bool has_faults(const json& record) {
  // The faults table's own control cell (loss 0, dup 0 on the link) belongs
  // with the faults table, not in the load table.
  if (record.at("cell").value("block", "") == "faults") return true;
  try {
    return !netem::FaultSpec::from_json(record.at("cell").at("faults")).empty();
  } catch (const std::exception&) {
    return false;
  }
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

std::string row_variant(const json& record) {
  const json& c = record.at("cell");
  std::string v = c.value("transport", "?");
  const TransportRow* row = find_transport(v);
  if (row && row->traits.retransmits) {  // the retransmit interval is part of what the row measures
    const json& retry = c.at("retry_timeout_ms");
    v += retry.is_null() ? fmt::format(" retry {} (default)", default_retry(*row))
                         : fmt::format(" retry {} ms", retry.get<int>());
  }
  if (c.value("drc", 0)) v += " +drc";
  if (c.value("drain_stale_replies", false)) v += " +drain";
  if (c.value("grpc_retry", false)) v += " +retry-policy";
  if (c.value("tcp_nodelay", false)) v += " nodelay";
  if (c.value("connect", "") == "per-call") v += " per-call";
  if (c.value("clients", 1) > 1) v += fmt::format(" x{} clients", c.value("clients", 1));
  return v;
}

std::string dependability_report(const std::vector<json>& records, const std::string& data_dir) {
  std::string out;
  for (const std::string& part : {load_table(records, data_dir), faults_table(records), classes_table(records),
                                  concentration_notes(records)})
    if (!part.empty()) out += part + "\n";
  return out;
}

}  // namespace rpclab::harness
