#include "netem/faults/netem_qdisc.h"

#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rpclab::netem {

namespace {

std::string pct(double v) { return fmt::format("{}%", v); }
std::string ms(double v) { return fmt::format("{}ms", v); }

// A queue long enough that a delayed burst is never tail-dropped: a drop
// here would be counted as loss the spec did not ask for.
constexpr const char* kLimit = "10000";

nlohmann::json parse_json(const std::string& text, const char* what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("cannot parse ") + what + ": " + e.what());
  }
}

uint64_t number_or_zero(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return (it != j.end() && it->is_number()) ? it->get<uint64_t>() : 0;
}

}  // namespace

std::vector<std::string> netem_qdisc_argv(const FaultSpec& spec, const std::string& ifname, bool with_seed) {
  std::vector<std::string> a = {"tc", "qdisc", "replace", "dev", ifname, "root", "netem", "limit", kLimit};
  if (spec.delay_ms > 0) {
    a.insert(a.end(), {"delay", ms(spec.delay_ms)});
    if (spec.jitter_ms > 0) a.push_back(ms(spec.jitter_ms));
  }
  if (spec.ge_p_pct) {
    a.insert(a.end(), {"loss", "gemodel", pct(*spec.ge_p_pct)});
    for (const auto& v : {spec.ge_r_pct, spec.ge_1h_pct, spec.ge_1k_pct}) {
      if (!v) break;  // positional: each needs the ones before it
      a.push_back(pct(*v));
    }
  } else if (spec.loss_pct > 0) {
    a.insert(a.end(), {"loss", "random", pct(spec.loss_pct)});
    if (spec.loss_corr_pct > 0) a.push_back(pct(spec.loss_corr_pct));
  }
  if (spec.dup_pct > 0) a.insert(a.end(), {"duplicate", pct(spec.dup_pct)});
  if (spec.reorder_pct > 0) a.insert(a.end(), {"reorder", pct(spec.reorder_pct)});
  if (spec.corrupt_pct > 0) a.insert(a.end(), {"corrupt", pct(spec.corrupt_pct)});
  if (!spec.rate.empty()) a.insert(a.end(), {"rate", spec.rate});
  if (with_seed && spec.seed) a.insert(a.end(), {"seed", std::to_string(*spec.seed)});
  return a;
}

bool netem_usage_has_seed(const std::string& usage) {
  return usage.find("seed") != std::string::npos;
}

QdiscStats parse_netem_stats(const std::string& json_text) {
  QdiscStats s;
  for (const auto& q : parse_json(json_text, "tc -s -j qdisc output")) {
    if (q.value("kind", "") != "netem") continue;
    s.found = true;
    s.packets = number_or_zero(q, "packets");
    s.bytes = number_or_zero(q, "bytes");
    s.drops = number_or_zero(q, "drops");
    s.qlen = number_or_zero(q, "qlen");
  }
  return s;
}

InterfaceStats parse_interface_stats(const std::string& json_text) {
  InterfaceStats s;
  auto j = parse_json(json_text, "ip -s -j link output");
  if (!j.is_array() || j.empty() || !j[0].contains("stats64"))
    throw std::runtime_error("ip -s -j link output has no stats64: " + json_text.substr(0, 200));
  const auto& st = j[0]["stats64"];
  s.rx_packets = number_or_zero(st["rx"], "packets");
  s.rx_bytes = number_or_zero(st["rx"], "bytes");
  s.tx_packets = number_or_zero(st["tx"], "packets");
  s.tx_bytes = number_or_zero(st["tx"], "bytes");
  return s;
}

std::optional<InterfaceStats> parse_net_dev(const std::string& text, const std::string& ifname) {
  // "  estv-a:    2328      10    0 ...": the name right-aligned before a
  // colon, then 8 receive and 8 transmit counters; a byte count of 8 digits
  // or more follows the colon with no space.
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t begin = line.find_first_not_of(' ');
    if (line.compare(begin, colon - begin, ifname) != 0 || colon - begin != ifname.size()) continue;
    std::istringstream fields(line.substr(colon + 1));
    uint64_t v[10] = {};
    for (uint64_t& x : v)
      if (!(fields >> x)) return std::nullopt;
    InterfaceStats s;
    s.rx_bytes = v[0];
    s.rx_packets = v[1];
    s.tx_bytes = v[8];
    s.tx_packets = v[9];
    return s;
  }
  return std::nullopt;
}

std::map<std::string, uint64_t> parse_snmp(const std::string& text) {
  // Lines come in pairs: "Ip: Forwarding DefaultTTL ..." then "Ip: 1 64 ...".
  std::map<std::string, uint64_t> out;
  std::istringstream in(text);
  std::string names, values;
  while (std::getline(in, names) && std::getline(in, values)) {
    std::istringstream n(names), v(values);
    std::string group, group2, key, value;
    n >> group;
    v >> group2;
    if (group != group2 || group.empty()) break;
    group.pop_back();  // the ':'
    while (n >> key && v >> value) {
      try {
        out[group + "." + key] = std::stoull(value);
      } catch (const std::exception&) {
        // negative fields (Tcp.MaxConn = -1) are not counters we read
      }
    }
  }
  return out;
}

DirectionCounters netem_direction_counters(const NetemReading& before, const NetemReading& now) {
  DirectionCounters d;
  d.offered = now.offered - before.offered;
  d.dropped = now.qdisc.drops - before.qdisc.drops;
  d.delivered = now.delivered_packets - before.delivered_packets;
  d.bytes_delivered = now.delivered_bytes - before.delivered_bytes;
  if (now.qdisc.found) {
    uint64_t out = (now.qdisc.packets - before.qdisc.packets) + now.qdisc.qlen + d.dropped;
    d.duplicated = out > d.offered ? out - d.offered : 0;
  }
  return d;
}

}  // namespace rpclab::netem
