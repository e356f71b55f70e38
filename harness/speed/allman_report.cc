#include "harness/speed/allman_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "ops/operation.h"
#include "ops/kiraly.h"
#include "transport/transport.h"
#include "harness/kit/plot.h"
#include "transport/settings_table.h"
#include "harness/speed/speed_rows.h"
#include "harness/speed/speed_matrix.h"
#include "harness/kit/data_csv.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

std::string find_field(const Csv& rows, const std::string& op, const std::string& system, const std::string& field) {
  for (const auto& row : rows)
    if (row.count("operation") && row.at("operation") == op && row.at("system") == system && row.count(field))
      return row.at(field);
  return "";
}

const std::string& op_of(const CellRecord& r) { return r.cell.config.op; }
using Pick = bool (*)(const CellRecord&);
size_t n_of(const CellRecord& r) { return r.speed.size.value_or(0); }

int op_rank(const std::string& op) {
  auto parsed = parse_operation(op);
  return parsed ? static_cast<int>(*parsed) : 99;
}

std::string allman_name(const std::string& transport) {
  const TransportRow* row = find_transport(transport);
  return row ? std::string(row->traits.allman_name) : "";
}

std::string kiraly_name(const std::string& transport) {
  const TransportRow* row = find_transport(transport);
  return row ? std::string(row->traits.kiraly_name) : "";
}

std::string floor_name(const std::string& transport) {
  const TransportRow* row = find_transport(transport);
  return row ? std::string(row->traits.floor) : "";
}

// Where and how a cell ran: "two-host persistent", "loopback per-call x2".
std::string place(const CellRecord& r) {
  return r.topology + " " + r.connect + (r.clients > 1 ? " x" + std::to_string(r.clients) : "");
}

// A measured cell's place: operation, N, link, connection, clients.
using Group = std::tuple<int, size_t, std::string, std::string, int>;
Group group_of(const CellRecord& r) { return {op_rank(op_of(r)), n_of(r), r.topology, r.connect, r.clients}; }

// The measured records `pick` takes, by group, in the table's transport order.
std::map<Group, std::vector<const CellRecord*>> by_group(const std::vector<CellRecord>& records,
                                                         Pick pick = allman_record) {
  std::map<Group, std::vector<const CellRecord*>> groups;
  for (const CellRecord& r : records)
    if (r.ok() && pick(r)) groups[group_of(r)].push_back(&r);
  for (auto& [key, rows] : groups)
    std::stable_sort(rows.begin(), rows.end(), [](const CellRecord* a, const CellRecord* b) {
      return table_rank(a->transport) < table_rank(b->transport);
    });
  return groups;
}

const CellRecord* floor_of(const CellRecord& r, const std::vector<const CellRecord*>& group) {
  std::string floor = floor_name(r.transport);
  for (const CellRecord* other : group) {
    const CellConfig& cell = other->cell.config;
    if (other->transport == floor && cell.settings.empty() && cell.at_most_once == r.cell.config.at_most_once)
      return other;
  }
  return nullptr;
}

// One of the bytes per call the link counted (WirePerCall::EachWay), or -1
// where it counted none.
double wire(const CellRecord& r, double WirePerCall::EachWay::*figure) {
  const MaybeNull<WirePerCall>& w = r.speed.wire;
  return w.has_value() && w->each_way ? (*w->each_way).*figure : -1;
}

std::string bytes_text(double v) { return v < 0 ? "-" : grouped(static_cast<uint64_t>(v + 0.5)); }

// Request plus response bytes, over the floor's.
using Wire = WirePerCall::EachWay;

std::string bytes_ratio(const CellRecord& r, const CellRecord* floor) {
  double mine = wire(r, &Wire::request_bytes_per_call) + wire(r, &Wire::response_bytes_per_call);
  if (!floor || wire(r, &Wire::request_bytes_per_call) < 0 || wire(*floor, &Wire::request_bytes_per_call) < 0)
    return "-";
  double base = wire(*floor, &Wire::request_bytes_per_call) + wire(*floor, &Wire::response_bytes_per_call);
  return base > 0 ? fixed(mine / base, 2) : "-";
}

// Both sides' CPU per call over the floor's for the same operation and N:
// what the RPC system's encoding and decoding cost, as an upper bound (it
// also holds its HTTP, framing and dispatch); Allman's "encode/decode"
// share, measured from the outside. '-' for the floor itself or without one.
std::string cpu_over_floor(const CellRecord& r, const CellRecord* floor) {
  auto both = [](const CellRecord& rec) {
    const std::optional<CpuPerCall>& cpu = rec.speed.cpu_us_per_call;
    return cpu ? cpu->client + cpu->server : -1.0;
  };
  if (!floor || floor == &r) return "-";
  double mine = both(r), base = both(*floor);
  return mine < 0 || base < 0 ? "-" : fixed(mine - base, 1);
}

std::string paper_ratio(const Csv& bytes, const std::string& op, const std::string& system) {
  auto total = [&](const std::string& sys) {
    std::string req = find_field(bytes, op, sys, "request_bytes"), rep = find_field(bytes, op, sys, "response_bytes");
    return req.empty() || rep.empty() ? -1.0 : std::stod(req) + std::stod(rep);
  };
  double mine = total(system), base = total("java.net");
  return mine > 0 && base > 0 ? fixed(mine / base, 2) : "";
}

bool paper_size(const CellRecord& r) { return n_of(r) == 50000 || op_of(r) == "is-prime"; }

// A figure with `decimals`, or "-".
std::string num(const std::optional<double>& v, int decimals) { return v ? fixed(*v, decimals) : std::string("-"); }

std::optional<double> cpu_client(const CellRecord& r) {
  return r.speed.cpu_us_per_call ? std::optional<double>(r.speed.cpu_us_per_call->client) : std::nullopt;
}

std::optional<double> cpu_server(const CellRecord& r) {
  return r.speed.cpu_us_per_call ? std::optional<double>(r.speed.cpu_us_per_call->server) : std::nullopt;
}

}  // namespace

bool allman_record(const CellRecord& record) {
  return record.is("speed") && workload_of(op_of(record)) == "allman";
}

bool kiraly_run(const CellRecord& record) { return record.is("speed") && workload_of(op_of(record)) == "kiraly"; }

std::string allman_bytes_table(const std::vector<CellRecord>& records, const std::string& data_dir, bool markdown) {
  auto groups = by_group(records);
  // Each operation at its largest N (Allman's 50,000 when it ran).
  std::map<std::tuple<int, std::string, std::string, int>, size_t> largest;
  for (const auto& [g, rows] : groups) {
    size_t& n = largest[{std::get<0>(g), std::get<2>(g), std::get<3>(g), std::get<4>(g)}];
    n = std::max(n, std::get<1>(g));
  }
  Csv paper = read_csv(data_dir + "/allman2003-bytes.csv");
  TextTable t({"operation", "N", "link", "transport", "request B", "response B", "x floor", "2003 request B",
               "2003 response B", "2003 x java.net"});
  for (const auto& [g, rows] : groups) {
    if (largest[{std::get<0>(g), std::get<2>(g), std::get<3>(g), std::get<4>(g)}] != std::get<1>(g)) continue;
    if (!t.empty()) t.rule();
    for (const CellRecord* r : rows) {
      std::string op = op_of(*r), system = allman_name(r->transport);
      bool beside = !system.empty() && paper_size(*r);
      t.add({op, std::to_string(n_of(*r)), place(*r), variant(*r),
             bytes_text(wire(*r, &Wire::request_bytes_per_call)), bytes_text(wire(*r, &Wire::response_bytes_per_call)),
             bytes_ratio(*r, floor_of(*r, rows)), beside ? find_field(paper, op, system, "request_bytes") : "",
             beside ? find_field(paper, op, system, "response_bytes") : "", beside ? paper_ratio(paper, op, system) : ""});
    }
  }
  if (t.empty()) return "";
  return "Bytes per call, as Allman's Table 5: the RPC's own bytes each way (the link's frame counters on the "
         "client's\nend of the two-host link, less 66 B of Ethernet/IP/TCP headers per frame; '-' = not counted, "
         "e.g. on loopback).\nx floor = (request + response) / the floor's; 2003: Allman's java.net and XML-RPC "
         "(docs/data/allman2003-bytes.csv).\n\n" +
         (markdown ? t.render_markdown() : t.render());
}

std::string allman_speed_table(const std::vector<CellRecord>& records, const std::string& data_dir, bool markdown) {
  Csv paper = read_csv(data_dir + "/allman2003-times.csv");
  TextTable t({"operation", "N", "link", "transport", "p50 us", "p99 us", "calls/s", "cpu us/call cli", "srv",
               "cpu - floor", "request B", "response B", "x floor", "2003 s"});
  for (const auto& [g, rows] : by_group(records)) {
    if (!t.empty()) t.rule();
    for (const CellRecord* r : rows) {
      std::string system = allman_name(r->transport);
      std::string then = !system.empty() && paper_size(*r) ? find_field(paper, op_of(*r), system, "transaction_s") : "";
      const LatencyFigures& l = r->speed.latency;
      t.add({op_of(*r), std::to_string(n_of(*r)), place(*r), variant(*r), num(l.p50_us, 1), num(l.p99_us, 1),
             num(l.calls_per_s, 1), num(cpu_client(*r), 1), num(cpu_server(*r), 1),
             cpu_over_floor(*r, floor_of(*r, rows)), bytes_text(wire(*r, &Wire::request_bytes_per_call)),
             bytes_text(wire(*r, &Wire::response_bytes_per_call)), num(r->speed.ratio_to_floor, 2), then});
    }
  }
  if (t.empty()) return "";
  return "Allman's operations, per call (x floor = p50 / the floor's p50; cpu - floor = client + server CPU per "
         "call\nless the floor's: encoding, decoding and the rest of the library's own work; 2003 s = Allman's median "
         "XML-RPC or\njava.net transaction over a LAN, a connection each, docs/data/allman2003-times.csv):\n\n" +
         (markdown ? t.render_markdown() : t.render());
}

namespace {

// Kiraly's "small" and "binary" rows: without the photo, and with his 1 MB.
std::string kiraly_data(size_t photo) { return photo == 0 ? "small" : photo == kKiralyPhotoBytes ? "binary" : ""; }

// The response's bytes over the photo's: base64's 4/3 (plus line breaks and
// markup) for the text transports, about 1 for the binary ones.
std::string per_photo_byte(const CellRecord& r) {
  double rep = wire(r, &Wire::response_bytes_per_call);
  return rep < 0 || n_of(r) == 0 ? "-" : fixed(rep / static_cast<double>(n_of(r)), 3);
}

}  // namespace

std::string kiraly_table(const std::vector<CellRecord>& records, const std::string& data_dir, bool markdown) {
  Csv paper = read_csv(data_dir + "/kiraly2018-record.csv");
  TextTable t({"photo B", "link", "transport", "request B", "response B", "resp/photo", "x floor B", "p50 us",
               "p99 us", "calls/s", "cpu us/call cli", "srv", "x floor", "s/100 calls", "2018 s/100 calls"});
  for (const auto& [g, rows] : by_group(records, kiraly_run)) {
    if (!t.empty()) t.rule();
    for (const CellRecord* r : rows) {
      std::string system = kiraly_name(r->transport), then;
      for (const auto& row : paper)
        if (!system.empty() && row.at("system") == system && row.at("data") == kiraly_data(n_of(*r)))
          then = row.at("seconds_per_100_calls");  // not a record: a row of Kiraly's table (docs/data)
      const LatencyFigures& l = r->speed.latency;
      t.add({grouped(n_of(*r)), place(*r), variant(*r), bytes_text(wire(*r, &Wire::request_bytes_per_call)),
             bytes_text(wire(*r, &Wire::response_bytes_per_call)), per_photo_byte(*r),
             bytes_ratio(*r, floor_of(*r, rows)), num(l.p50_us, 1), num(l.p99_us, 1), num(l.calls_per_s, 1),
             num(cpu_client(*r), 1), num(cpu_server(*r), 1), num(r->speed.ratio_to_floor, 2),
             num(l.seconds_per_100_calls, 4), then.empty() ? "" : fixed(std::stod(then), 4)});
    }
  }
  if (t.empty()) return "";
  return "Kiraly's record: GetRecord per call without (0) and with its photo (bytes from the link, as in Allman's "
         "table;\nresp/photo = response bytes / photo bytes: base64's 4/3 for XML-RPC and JSON-RPC; x floor B and "
         "x floor: bytes\nand p50 over the floor's; s/100 calls = mean x 100, Kiraly's measure; 2018: his C++ client "
         "and server,\ndocs/data/kiraly2018-record.csv):\n\n" +
         (markdown ? t.render_markdown() : t.render());
}

std::vector<std::string> allman_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                      process::CommandLog& log, std::vector<std::string>* notes) {
  std::map<std::string, PlotSpec> plots;  // by operation
  std::map<std::pair<std::string, std::string>, size_t> series;
  for (const auto& [g, rows] : by_group(records))
    for (const CellRecord* r : rows) {
      std::string op = op_of(*r);
      if (!sized_op(op)) continue;
      PlotSpec& p = plots[op];
      if (p.name.empty())
        p = {"allman-" + op + "-vs-n", "Allman's " + op + ": time per call vs N (p50, bars p50..p99)",
             "N doubles", "microseconds per call", XAxis::kMeasure, true, true};
      std::string title = variant(*r) + " " + r->topology + " " + r->connect;
      auto key = std::make_pair(op, title);
      if (!series.count(key)) series[key] = p.series.size(), p.series.push_back({title});
      Series& s = p.series[series[key]];
      s.x.push_back(static_cast<double>(n_of(*r)));
      s.y.push_back(r->speed.latency.p50_us.value_or(0.0));
      s.low.push_back(r->speed.latency.p50_us.value_or(0.0));
      s.high.push_back(r->speed.latency.p99_us.value_or(0.0));
    }
  std::vector<std::string> pngs;
  for (const auto& [op, p] : plots) {
    std::string why, png = draw(p, dir, log, &why);
    if (!png.empty()) pngs.push_back(png);
    else notes->push_back("plot skipped: " + why);
  }
  return pngs;
}

}  // namespace rpclab::harness
