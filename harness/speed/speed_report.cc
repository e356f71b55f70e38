#include "harness/speed/speed_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "transport/transport.h"
#include "transport/settings_table.h"
#include "harness/speed/allman_report.h"
#include "harness/speed/at_most_once_report.h"
#include "harness/speed/paths_report.h"
#include "harness/speed/latency_order.h"
#include "harness/speed/latency_plots.h"
#include "harness/speed/rate_report.h"
#include "harness/speed/speed_rows.h"
#include "harness/kit/plot.h"
#include "harness/kit/stats.h"
#include "harness/kit/text_table.h"

namespace rpclab::harness {
namespace {

// Levy's tables are of ECHO; Allman's and Kiraly's operations and the
// at-most-once NEXT have their own (allman_report.h, at_most_once_report.h).
bool measured(const CellRecord& r) { return r.ok() && echo_run(r); }
bool calibration(const CellRecord& r) { return r.speed.calibration.value_or(false); }

const std::string& topology(const CellRecord& r) { return r.topology; }
const std::string& connect(const CellRecord& r) { return r.connect; }
int clients(const CellRecord& r) { return r.clients; }
size_t size(const CellRecord& r) { return r.speed.size.value_or(0); }

std::string levy_name(const std::string& transport) {
  const TransportRow* row = find_transport(transport);
  return row ? std::string(row->traits.levy_name) : "";
}

// Levy's 1989 timing rows: (implementation, clients, size label) -> same, different.
std::map<std::tuple<std::string, int, std::string>, std::pair<std::string, std::string>> levy_timing(
    const std::string& data_dir) {
  std::map<std::tuple<std::string, int, std::string>, std::pair<std::string, std::string>> rows;
  std::ifstream in(data_dir + "/levy1989-speed.csv");
  bool header = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      header = true;
      continue;
    }
    std::stringstream f(line);
    std::string impl, n, sz, same, diff;
    std::getline(f, impl, ',');
    std::getline(f, n, ',');
    std::getline(f, sz, ',');
    std::getline(f, same, ',');
    std::getline(f, diff, ',');
    rows[{impl, std::stoi(n), sz}] = {same, diff};
  }
  return rows;
}

std::string opt_fixed(const std::optional<double>& v, int decimals) { return v ? fixed(*v, decimals) : "-"; }

std::string levy_table(const std::vector<CellRecord>& records, const std::string& data_dir, bool markdown) {
  // The table's order: Levy's Sun RPC rows first, then today's additions.
  std::map<std::tuple<long, std::string, int, size_t>, std::map<std::string, const CellRecord*>> rows;
  for (const CellRecord& r : records)
    if (measured(r) && !calibration(r) && connect(r) == "per-call")
      rows[{table_rank(r.transport), variant(r), clients(r), size(r)}][topology(r)] = &r;
  if (rows.empty()) return "";
  auto levy = levy_timing(data_dir);
  TextTable t({"implementation", "clients", "size", "same machine s/100", "other machine s/100", "1989 same",
               "1989 other"});
  std::string last;
  bool noise = false;
  for (const auto& [key, by_topology] : rows) {
    const auto& [order, transport, n, sz] = key;
    std::string implementation = by_topology.begin()->second->transport;
    if (!last.empty() && last != transport) t.rule();
    last = transport;
    // A mean rests on the same calls as the cell's p50: it carries the
    // p50's noise mark (speed_rows.h).
    auto at = [&by_topology = by_topology, &noise](const char* topo) {
      auto it = by_topology.find(topo);
      if (it == by_topology.end()) return std::string("-");
      bool noisy = noisy_at(*it->second, "p50");
      noise = noise || noisy;
      return marked(opt_fixed(it->second->speed.latency.seconds_per_100_calls, 4), noisy);
    };
    auto old = levy.find({levy_name(implementation), n, size_label(sz)});
    t.add({transport, std::to_string(n), size_label(sz), at("loopback"), at("two-host"),
           old == levy.end() ? "" : old->second.first, old == levy.end() ? "" : old->second.second});
  }
  return "Levy's timing table: seconds for 100 calls per client, a new connection per call (his setting);\n"
         "same machine = loopback, other machine = two namespaces joined by a veth pair.\n\n" +
         (markdown ? t.render_markdown() : t.render()) +
         (noise ? noise_note() + " A mean (s/100) carries its cell's p50 mark.\n" : "");
}

std::string ordering(const std::vector<const CellRecord*>& group) {
  std::vector<TimedTransport> timed;
  for (const CellRecord* r : group) {
    const LatencyFigures& l = r->speed.latency;
    timed.push_back({variant(*r), l.mean_us.value_or(0.0), l.trial_means_us.value_or(std::vector<double>{})});
  }
  return latency_order(timed, 0.01);
}

// A tail percentile from fewer calls than it needs is the maximum, or an
// interpolation towards it: shown only where at least one call lies
// beyond it (p99.9: 1,000 calls; p99: 100). Records without the count
// show what they hold.
std::string tail(const MaybeNull<double>& value, const std::optional<uint64_t>& calls, double q, bool* hidden) {
  if (calls && static_cast<double>(*calls) * (1 - q) < 1 - 1e-9) {
    *hidden = true;
    return "-";
  }
  return opt_fixed(value, 1);
}

std::string percentile_table(const std::vector<CellRecord>& records, const std::string& topo, const std::string& mode,
                             bool one_client_only, bool markdown) {
  std::vector<std::vector<std::string>> rows;  // an empty row: a rule
  std::map<std::pair<int, size_t>, std::vector<const CellRecord*>> groups;
  std::string last;
  bool wire = false, tails_hidden = false, from_proc = false, noise = false;
  for (const CellRecord& r : records) {
    if (!measured(r) || calibration(r) || topology(r) != topo || connect(r) != mode) continue;
    if (one_client_only && clients(r) != 1) continue;
    groups[{clients(r), size(r)}].push_back(&r);
    if (!last.empty() && last != variant(r)) rows.push_back({});
    last = variant(r);
    const SpeedCell& s = r.speed;
    // The mark beside every ratio, a blank where there is none, keeps the
    // column's digits aligned.
    std::string ratio = opt_fixed(s.ratio_to_floor, 2);
    ratio += s.welch_vs_floor.has_value() && s.welch_vs_floor->significant_at_0_01 ? "*" : " ";
    const std::optional<CpuPerCall>& cpu = s.cpu_us_per_call;
    from_proc = from_proc || (cpu && cpu->server_from);
    const std::optional<uint64_t>& n = s.latency.calls_measured;
    wire = wire || s.wire.has_value();
    auto mark = [&noise](const std::string& figure, bool noisy) {
      std::string out = marked(figure, noisy);
      noise = noise || out != figure;
      return out;
    };
    rows.push_back({variant(r), std::to_string(clients(r)), size_label(size(r)),
                    mark(opt_fixed(s.latency.p50_us, 1), noisy_at(r, "p50")),
                    mark(opt_fixed(s.latency.p90_us, 1), noisy_at(r, "p90")),
                    mark(tail(s.latency.p99_us, n, 0.99, &tails_hidden), noisy_at(r, "p99")),
                    mark(tail(s.latency.p999_us, n, 0.999, &tails_hidden), noisy_at(r, "p99.9")),
                    opt_fixed(s.latency.max_us, 1),
                    opt_fixed(s.latency.calls_per_s, 0), cpu ? fixed(cpu->client, 1) : "-",
                    cpu ? fixed(cpu->server, 1) + (cpu->server_from ? "^" : "") : "-",
                    s.wire.has_value() ? fixed(s.wire->bytes_per_call, 0) : "-", ratio});
  }
  // Bytes on the wire are counted on a link the harness made (two-host);
  // a table of loopback cells has none, so no column of dashes.
  std::vector<std::string> header = {"transport", "clients", "size", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us",
                                     "calls/s", "cpu us/call cli", "srv", "bytes/call", "x floor"};
  const size_t bytes_column = 11;
  if (!wire) header.erase(header.begin() + bytes_column);
  TextTable t(header);
  for (std::vector<std::string>& row : rows) {
    if (row.empty()) {
      t.rule();
      continue;
    }
    if (!wire) row.erase(row.begin() + bytes_column);
    t.add(row);
  }
  if (t.empty()) return "";
  std::string out = fmt::format("Per-call latency, {} connection, {} (microseconds; x floor = p50 / raw floor p50, "
                                "* = the trial means differ from the floor's by Welch's t-test at alpha 0.01):\n\n",
                                mode, topo) +
                    (markdown ? t.render_markdown() : t.render());
  if (tails_hidden)
    out += "(- in p99 or p99.9: the cell measured fewer than 100 or 1,000 calls, where that percentile is the "
           "maximum)\n";
  if (noise) out += noise_note() + "\n";
  if (!wire) out += "(no bytes/call: bytes on the wire are counted on the two-host link only)\n";
  if (from_proc)
    out += "(^ in srv: the harness measured the server's CPU from /proc/<pid>/stat around each trial, in 10 ms "
           "ticks, per call the clients made: its adapter writes no stats file; the others' servers count their own)\n";
  out += "\nOrder by mean latency (Welch's t-test on the trial means, alpha 0.01): '<' = every transport before it "
         "is\nsignificantly faster than every one after it; ',' = not separated; significant pairs inside a group "
         "follow it:\n";
  // Aligned lines: in Markdown a block of them, which report.html keeps as it is.
  if (markdown) out += "```\n";
  for (const auto& [key, group] : groups)
    out += fmt::format("  {} client(s), {:>4}: {}\n", key.first, size_label(key.second), ordering(group));
  if (markdown) out += "```\n";
  return out;
}

// Three columns per row that has a calibration tool (its traits) the run
// measured: the tool's p50, the row's, and their ratio.
std::string calibration_table(const std::vector<CellRecord>& records, bool markdown) {
  std::vector<const TransportRow*> floors;
  std::vector<std::string> headers = {"topology", "size"};
  auto measured_tool = [&](std::string_view tool) {
    return std::any_of(records.begin(), records.end(),
                       [&](const CellRecord& r) { return calibration(r) && r.transport == tool; });
  };
  for (const TransportRow& row : transports())
    if (!row.traits.calibration.empty() && measured_tool(row.traits.calibration)) {
      floors.push_back(&row);
      for (std::string h : {std::string(row.traits.calibration) + " p50", std::string(row.name) + " p50",
                            std::string(row.name) + "/" + std::string(row.traits.calibration)})
        headers.push_back(h);
    }
  TextTable t(headers);
  std::map<std::pair<std::string, size_t>, std::map<std::string, const CellRecord*>> rows;
  for (const CellRecord& r : records) {
    if (!measured(r)) continue;
    const TransportRow* row = find_transport(r.transport);
    bool calibrated = row && !row->traits.calibration.empty() && connect(r) == "persistent" && clients(r) == 1 &&
                      r.cell.config.settings.empty() && r.cell.config.op == "echo";  // the row as it comes
    if (calibration(r) || calibrated) rows[{topology(r), size(r)}][r.transport] = &r;
  }
  for (const auto& [key, by] : rows) {
    auto p50 = [&by = by](const std::string& t) {
      return by.count(t) ? opt_fixed(by.at(t)->speed.latency.p50_us, 1) : "-";
    };
    auto ratio = [&by = by](const std::string& raw) {
      return by.count(raw) ? opt_fixed(by.at(raw)->speed.ratio_to_sockperf.value, 2) : "-";
    };
    std::vector<std::string> line = {key.first, size_label(key.second)};
    bool any = false;
    for (const TransportRow* f : floors) {
      std::string tool(f->traits.calibration), name(f->name);
      any |= by.count(tool) > 0;
      for (const std::string& cell : {p50(tool), p50(name), ratio(name)}) line.push_back(cell);
    }
    if (any) t.add(line);
  }
  if (t.empty()) return "";
  return "Calibration (p50 us; persistent, 1 client): sockperf ping-pong --full-rtt against rpclab's raw floors, and "
         "ghz (a gRPC load generator, one connection, one call at a time) against rpclab's gRPC client, both on "
         "rpclab's gRPC server:\n\n" + (markdown ? t.render_markdown() : t.render());
}

std::string header(const std::vector<CellRecord>& records) {
  bool open = false, closed = false;
  const CellRecord* first = nullptr;
  for (const CellRecord& r : records)
    if (r.is("speed")) {
      if (!first) first = &r;
      (r.cell.config.rate_per_s ? open : closed) = true;
    }
  if (!first) return "";
  std::string out = first->speed.latency_pinned.value_or(false)
                        ? "Timing: /dev/cpu_dma_latency held at 0 for the run (no idle wake-up delay in the figures).\n"
                        : "Timing: /dev/cpu_dma_latency could NOT be held at 0; on a VM expect ~100 us of idle wake-up "
                          "in every call.\n";
  if (closed) out += "Closed loop: each client waits for a reply before the next call, as in Levy's test.\n";
  if (open)
    out += "Open loop (--rates): each client's calls are due on a fixed schedule, one outstanding at a time, and "
           "their latency\nis taken from when each was due (the rate-sweep table).\n";
  return out;
}

std::string not_measured(const std::vector<CellRecord>& records, bool markdown) {
  std::map<std::string, int> reasons;
  for (const CellRecord& r : records)
    if (r.is("speed") && !r.ok()) ++reasons[r.status + ": " + r.transport + ": " + r.reason];
  std::vector<std::string> items;
  for (const auto& [why, n] : reasons) items.push_back(fmt::format("{} cell(s) {}", n, why));
  return item_list("Cells not measured:", items, markdown);
}

}  // namespace

const std::vector<ReportTable>& speed_tables() {
  using Records = std::vector<CellRecord>;
  // The terminal shows the one-client loopback latencies; report.txt every
  // topology and connection mode instead.
  static const std::vector<ReportTable> tables = {
      {"timing", "how the calls were timed", [](const Records& r, const ReportOptions&) { return header(r); }},
      {"levy", "Levy's timing table: seconds per 100 calls, a new connection per call, beside his 1989 figures",
       [](const Records& r, const ReportOptions& o) { return levy_table(r, o.data_dir, o.markdown); }},
      {"loopback-persistent", "per-call latency percentiles, loopback, one client, persistent connection",
       [](const Records& r, const ReportOptions& o) {
         return percentile_table(r, "loopback", "persistent", true, o.markdown);
       },
       false, true},
      {"allman-bytes", "Allman's Table 5: bytes per call each way, at each operation's largest N",
       [](const Records& r, const ReportOptions& o) { return allman_bytes_table(r, o.data_dir, o.markdown); }},
      {"allman-speed", "Allman's operations per call: latency, calls/s, CPU, bytes, against the floor",
       [](const Records& r, const ReportOptions& o) { return allman_speed_table(r, o.data_dir, o.markdown); }},
      {"kiraly", "Kiraly's record with and without its photo: bytes each way and latency",
       [](const Records& r, const ReportOptions& o) { return kiraly_table(r, o.data_dir, o.markdown); }},
      {"at-most-once", "what the at-most-once table costs a NEXT",
       [](const Records& r, const ReportOptions& o) { return at_most_once_cost_table(r, o.markdown); }},
      {"paths", "the price of the path: each proxy's and gRPC balancing's added p50/p99 and CPU per call beside "
                "direct, and the shared at-most-once table's cost",
       [](const Records& r, const ReportOptions& o) { return paths_cost_table(r, o.markdown); }},
      {"percentiles", "per-call latency percentiles for every topology and connection mode",
       [](const Records& r, const ReportOptions& o) {
         std::string out;
         for (const char* topo : {"loopback", "two-host"})
           for (const char* mode : {"persistent", "per-call"}) {
             std::string t = percentile_table(r, topo, mode, false, o.markdown);
             if (!t.empty()) out += (out.empty() ? "" : "\n") + t;
           }
         return out;
       },
       true, false},
      {"rate-sweep", "open loop: achieved calls/s and latency from the due time against offered rate, the knee",
       [](const Records& r, const ReportOptions& o) { return rate_sweep_table(r, o.markdown); }},
      {"calibration", "sockperf against rpclab's raw floors, ghz against its gRPC client",
       [](const Records& r, const ReportOptions& o) { return calibration_table(r, o.markdown); }},
      {"not-measured", "cells skipped or failed, and why",
       [](const Records& r, const ReportOptions& o) { return not_measured(r, o.markdown); }},
  };
  return tables;
}

std::string speed_report(const std::vector<CellRecord>& records, const ReportOptions& options) {
  return render_report(speed_tables(), records, options);
}

std::vector<PlotSpec> speed_plot_specs(const std::vector<CellRecord>& records) {
  PlotSpec by_size{"latency-vs-size", "Call latency vs payload size (loopback, persistent, 1 client; bars p50..p99)",
                   "payload bytes", "microseconds per call", XAxis::kMeasure, true, true};
  PlotSpec by_clients{"throughput-vs-clients", "Throughput vs parallel clients (loopback, persistent, 12 B)",
                      "parallel clients", "calls per second (all clients)", XAxis::kCount};
  std::map<std::string, size_t> size_series, client_series;
  std::map<std::string, std::vector<size_t>> noisy_sizes;  // a series' points that are noise: its legend says so
  for (const CellRecord& r : records) {
    if (!measured(r) || calibration(r) || topology(r) != "loopback" || connect(r) != "persistent") continue;
    std::string t = variant(r);
    const LatencyFigures& l = r.speed.latency;
    if (clients(r) == 1) {
      if (!size_series.count(t)) size_series[t] = by_size.series.size(), by_size.series.push_back({t});
      Series& s = by_size.series[size_series[t]];
      s.x.push_back(std::max<double>(1, static_cast<double>(size(r))));
      s.y.push_back(l.p50_us.value_or(0.0));
      s.low.push_back(l.p50_us.value_or(0.0));
      s.high.push_back(l.p99_us.value_or(0.0));
      if (noisy_at(r, "p50") || noisy_at(r, "p99")) noisy_sizes[t].push_back(size(r));
    }
    if (size(r) == 12) {
      if (!client_series.count(t)) client_series[t] = by_clients.series.size(), by_clients.series.push_back({t});
      Series& s = by_clients.series[client_series[t]];
      double v = l.calls_per_s.value_or(0.0);
      s.x.push_back(clients(r));
      s.y.push_back(v);
      s.low.push_back(v);
      s.high.push_back(v);
    }
  }
  for (auto& [t, sizes] : noisy_sizes) by_size.series[size_series[t]].title = series_title(t, sizes);
  std::vector<PlotSpec> plots = {by_size, by_clients};
  for (PlotSpec& d : latency_distribution_specs(records)) plots.push_back(std::move(d));
  for (PlotSpec& r : rate_plot_specs(records)) plots.push_back(std::move(r));
  return plots;
}

std::vector<std::string> speed_plots(const std::vector<CellRecord>& records, const std::string& dir,
                                     process::CommandLog& log,
                                     std::vector<std::string>* notes) {
  std::vector<std::string> pngs = allman_plots(records, dir, log, notes);
  for (const PlotSpec& p : speed_plot_specs(records)) {
    if (p.series.empty()) continue;
    std::string why, png = draw(p, dir, log, &why);
    if (!png.empty()) pngs.push_back(png);
    else notes->push_back("plot skipped: " + why);
  }
  return pngs;
}

CellFigures speed_cell_figures() {
  CellFigures f;
  f.headers = {"calls", "p50 us", "p90 us", "p99 us", "max us", "calls/s"};
  f.values = [](const CellRecord& r) -> std::vector<std::string> {
    const LatencyFigures& l = r.speed.latency;
    if (!l.p50_us) return {};
    const std::optional<uint64_t>& n = l.calls_measured;
    return {grouped(n.value_or(0)),
            marked(fixed(*l.p50_us, 1), noisy_at(r, "p50")),
            marked(fixed(l.p90_us.value_or(0.0), 1), noisy_at(r, "p90")),
            marked(fixed(l.p99_us.value_or(0.0), 1), noisy_at(r, "p99")),
            fixed(l.max_us.value_or(0.0), 1),
            fixed(l.calls_per_s.value_or(0.0), 0)};
  };
  f.note = "Each cell's latency over its measured calls. " + noise_note();
  return f;
}

}  // namespace rpclab::harness
