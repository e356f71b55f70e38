// nftables loss (receiver's ingress) and duplication (sender's egress) on
// the veth ends; see nft_rules.h for the rules and why they sit where they do.
#include "netem/faults/nft_backend.h"

#include <fmt/format.h>

#include "process/command_runner.h"
#include "netem/faults/nft_rules.h"

namespace rpclab::netem::detail {

namespace {

class NftBackend : public FaultBackend {
 public:
  NftBackend(const Topology& t, process::CommandLog& log) : FaultBackend(t, log) {}

  BackendKind kind() const override { return BackendKind::kNftables; }
  bool seed_applied() const override { return false; }  // numgen random takes no seed

  void apply(const FaultSpec& spec) override {
    bool to_server = impairs(spec.direction, Direction::kToServer);
    bool to_client = impairs(spec.direction, Direction::kToClient);
    if (spec.seed) log_.comment("nftables numgen random takes no seed: the loss pattern is not seeded");
    NftEnd cli{topology_.client().ifname, "to-server", "to-client", to_server, to_client};
    NftEnd srv{topology_.server().ifname, "to-client", "to-server", to_client, to_server};
    for (const auto& cmd : nft_commands(spec, cli)) process::run_checked(cmd, log_, topology_.client().netns);
    for (const auto& cmd : nft_commands(spec, srv)) process::run_checked(cmd, log_, topology_.server().netns);
  }

  LinkCounters read_counters() override {
    auto counters = list(topology_.client());
    for (const auto& [name, c] : list(topology_.server())) counters[name] = c;
    LinkCounters out;
    out.source = "nft rule counters (sender egress: offered, dup; receiver ingress: arrived, drop)";
    out.to_server = direction(counters, "to-server");
    out.to_client = direction(counters, "to-client");
    return out;
  }

  std::string state() override {
    std::string out;
    for (const Host* h : {&topology_.server(), &topology_.client()}) {
      out += fmt::format("# netns {}: nft list ruleset\n", h->netns);
      out += process::run({"nft", "list", "ruleset"}, log_, h->netns).out;
    }
    return out;
  }

 private:
  std::map<std::string, NftCounter> list(const Host& h) {
    return parse_nft_counters(process::run_checked({"nft", "-j", "list", "table", "netdev", kNftTable}, log_, h.netns).out);
  }

  static DirectionCounters direction(std::map<std::string, NftCounter>& c, const std::string& d) {
    DirectionCounters out;
    NftCounter arrived = c[d + " arrived"], dropped = c[d + " drop"];
    out.offered = c[d + " offered"].packets;
    out.duplicated = c[d + " dup"].packets;
    out.dropped = dropped.packets;
    out.delivered = arrived.packets - dropped.packets;
    out.bytes_delivered = arrived.bytes - dropped.bytes;
    return out;
  }

};

}  // namespace

std::unique_ptr<FaultBackend> make_nft_backend(const Topology& topology, process::CommandLog& log) {
  return std::make_unique<NftBackend>(topology, log);
}

}  // namespace rpclab::netem::detail
