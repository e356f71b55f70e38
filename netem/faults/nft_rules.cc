#include "netem/faults/nft_rules.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rpclab::netem {

namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

std::vector<std::string> rule(const std::string& chain, std::vector<std::string> body, const std::string& comment) {
  std::vector<std::string> a = {"nft", "add", "rule", "netdev", kNftTable, chain, "meta", "protocol", "ip"};
  a.insert(a.end(), body.begin(), body.end());
  a.insert(a.end(), {"comment", quoted(comment)});
  return a;
}

std::vector<std::string> base_chain(const std::string& chain, const std::string& ifname) {
  return {"nft", "add", "chain", "netdev", kNftTable, chain,
          "{ type filter hook " + chain + " device " + quoted(ifname) + " priority 0 ; }"};
}

std::string dup_mark() { return fmt::format("{:#x}", kNftDupMark); }

// Every packet at 100%: `numgen random mod 1000000 < 1000000` is refused by
// nft (the value is out of the range 0-999999), and there is nothing to draw.
std::vector<std::string> random_below(double pct) {
  uint32_t threshold = nft_threshold(pct);
  if (threshold >= 1000000) return {};
  return {"numgen", "random", "mod", "1000000", "<", std::to_string(threshold)};
}

}  // namespace

uint32_t nft_threshold(double pct) { return static_cast<uint32_t>(std::llround(pct * 10000.0)); }

std::vector<std::vector<std::string>> nft_commands(const FaultSpec& spec, const NftEnd& end) {
  std::vector<std::vector<std::string>> cmds;
  cmds.push_back({"nft", "add", "table", "netdev", kNftTable});
  cmds.push_back(base_chain("egress", end.ifname));
  cmds.push_back(rule("egress", {"meta", "mark", "!=", dup_mark(), "counter"}, end.sends + " offered"));
  if (end.impair_sends && spec.dup_pct > 0) {
    std::vector<std::string> body = {"meta", "mark", "!=", dup_mark()};
    for (auto& w : random_below(spec.dup_pct)) body.push_back(w);
    body.insert(body.end(), {"counter", "meta", "mark", "set", dup_mark(), "dup", "to", quoted(end.ifname),
                             "meta", "mark", "set", "0"});
    cmds.push_back(rule("egress", body, end.sends + " dup"));
  }
  cmds.push_back(base_chain("ingress", end.ifname));
  cmds.push_back(rule("ingress", {"counter"}, end.receives + " arrived"));
  if (end.impair_receives && spec.loss_pct > 0) {
    std::vector<std::string> body = random_below(spec.loss_pct);
    body.insert(body.end(), {"counter", "drop"});
    cmds.push_back(rule("ingress", body, end.receives + " drop"));
  }
  return cmds;
}

std::map<std::string, NftCounter> parse_nft_counters(const std::string& json_text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("cannot parse nft -j output: ") + e.what());
  }
  std::map<std::string, NftCounter> out;
  for (const auto& item : j.value("nftables", nlohmann::json::array())) {
    if (!item.contains("rule")) continue;
    const auto& r = item["rule"];
    if (!r.contains("comment")) continue;
    for (const auto& e : r.value("expr", nlohmann::json::array())) {
      if (!e.contains("counter")) continue;
      out[r["comment"].get<std::string>()] = {e["counter"].value("packets", uint64_t{0}),
                                               e["counter"].value("bytes", uint64_t{0})};
    }
  }
  return out;
}

}  // namespace rpclab::netem
