#include "netem/events/link_event_rules.h"

#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rpclab::netem {

namespace {

// Sums stats.packets of every gact action found anywhere below `j`.
uint64_t gact_packets(const nlohmann::json& j) {
  uint64_t sum = 0;
  if (j.is_object()) {
    if (j.value("kind", "") == "gact" && j.contains("stats") && j["stats"].is_object())
      sum += j["stats"].value("packets", uint64_t{0});
    for (const auto& [key, value] : j.items()) sum += gact_packets(value);
  } else if (j.is_array()) {
    for (const auto& value : j) sum += gact_packets(value);
  }
  return sum;
}

}  // namespace

std::vector<std::string> nft_event_table_argv(const std::string& table, const std::string& ifname,
                                              const std::string& rule, const std::string& comment) {
  return {"nft", fmt::format("add table netdev {0} ; add chain netdev {0} ingress {{ type filter hook ingress device "
                             "\"{1}\" priority 10 ; }} ; add rule netdev {0} ingress {2} comment \"{3}\"",
                             table, ifname, rule, comment)};
}

std::vector<std::string> nft_list_table_argv(const std::string& table) {
  return {"nft", "-j", "list", "table", "netdev", table};
}

std::vector<std::string> nft_delete_table_argv(const std::string& table) {
  return {"nft", "delete", "table", "netdev", table};
}

std::vector<std::vector<std::string>> tc_partition_argvs(const std::string& ifname) {
  return {{"tc", "qdisc", "add", "dev", ifname, "ingress"},
          {"tc", "filter", "add", "dev", ifname, "ingress", "prio", "1", "matchall", "action", "drop"}};
}

std::vector<std::string> tc_list_ingress_argv(const std::string& ifname) {
  return {"tc", "-s", "-j", "filter", "show", "dev", ifname, "ingress"};
}

std::vector<std::string> tc_remove_ingress_argv(const std::string& ifname) {
  return {"tc", "qdisc", "del", "dev", ifname, "ingress"};
}

uint64_t parse_tc_dropped(const std::string& json_text) {
  try {
    return gact_packets(nlohmann::json::parse(json_text));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("cannot parse tc -s -j filter output: ") + e.what());
  }
}

std::vector<std::string> ss_kill_argv(const std::string& peer) {
  return {"ss", "-K", "-t", "-n", "-H", "dst", peer};
}

std::vector<std::string> ss_established_argv(const std::string& peer) {
  return {"ss", "-t", "-n", "-H", "state", "established", "dst", peer};
}

std::vector<std::string> ss_kill_connected_argv() { return {"ss", "-K", "-t", "-n", "-H", "state", "connected"}; }

std::vector<std::string> ss_connected_argv() { return {"ss", "-t", "-n", "-H", "state", "connected"}; }

std::vector<std::string> tc_delay_argv(const std::string& ifname, int64_t delay_ms) {
  return {"tc", "qdisc", "add", "dev", ifname, "root", "netem", "delay", std::to_string(delay_ms) + "ms"};
}

std::vector<std::string> tc_remove_root_argv(const std::string& ifname) {
  return {"tc", "qdisc", "del", "dev", ifname, "root"};
}

size_t count_socket_lines(const std::string& ss_output) {
  std::istringstream in(ss_output);
  size_t n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) ++n;
  return n;
}

std::vector<std::vector<std::string>> iptables_reset_argvs(const std::string& ifname) {
  return {{"iptables-legacy", "-w", "-N", kResetChain},
          {"iptables-legacy", "-w", "-A", kResetChain, "-i", ifname, "-p", "tcp", "!", "--tcp-flags", "RST", "RST",
           "-j", "REJECT", "--reject-with", "tcp-reset"},
          {"iptables-legacy", "-w", "-I", "INPUT", "1", "-j", kResetChain}};
}

std::vector<std::string> iptables_list_reset_argv() {
  return {"iptables-legacy", "-w", "-L", kResetChain, "-v", "-x", "-n"};
}

std::vector<std::vector<std::string>> iptables_remove_reset_argvs() {
  return {{"iptables-legacy", "-w", "-D", "INPUT", "-j", kResetChain},
          {"iptables-legacy", "-w", "-F", kResetChain},
          {"iptables-legacy", "-w", "-X", kResetChain}};
}

// "Chain rpclab-reset (1 references)", a header "pkts bytes target ...",
// then one line per rule starting with its packet count.
uint64_t parse_iptables_packets(const std::string& listing) {
  std::istringstream in(listing);
  uint64_t packets = 0;
  bool rule = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string first;
    if (!(words >> first) || first.find_first_not_of("0123456789") != std::string::npos) continue;
    packets += std::stoull(first);
    rule = true;
  }
  if (!rule) throw std::runtime_error("no rule in the iptables listing of " + std::string(kResetChain) + ": " + listing);
  return packets;
}

}  // namespace rpclab::netem
