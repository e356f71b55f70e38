#include "netem/remote_faults.h"

#include <fmt/format.h>

#include "netem/nft_rules.h"

namespace rpclab::netem {

std::string remote_fault_refusal(const FaultSpec& spec) {
  if (!spec.events.empty())
    return "timed events (partitions, resets, server crashes) are not applied on a remote host yet: leave out the "
           "profile's events";
  std::vector<std::string> no = spec.unsupported_by(BackendKind::kNftables);
  if (!no.empty()) {
    std::string what;
    for (const std::string& w : no) what += (what.empty() ? "" : ", ") + w;
    return "the remote host's faults are made by nftables, which cannot apply " + what +
           ": give only --loss and --dup";
  }
  bool to_server = spec.direction == Direction::kBoth || spec.direction == Direction::kToServer;
  bool to_client = spec.direction == Direction::kBoth || spec.direction == Direction::kToClient;
  if (spec.dup_pct > 0 && to_server)
    return "the server's end can duplicate only what it sends: give --direction to-client for --dup (a copy of a "
           "request needs the client's end, which rpclab leaves alone on this machine)";
  if (spec.loss_pct > 0 && to_client)
    return "the server's end drops only what it receives: give --direction to-server for --loss";
  return "";
}

std::string RemoteNftFaults::as_root(const std::vector<std::string>& argv) const {
  return (sudo_.empty() ? "" : sudo_ + " ") + shell_line(argv);
}

std::string RemoteNftFaults::removal(const std::string& sudo) {
  return (sudo.empty() ? "" : sudo + " ") + fmt::format("nft delete table netdev {} 2>/dev/null", kNftTable);
}

void RemoteNftFaults::apply(const FaultSpec& spec) {
  if (std::string why = remote_fault_refusal(spec); !why.empty()) throw SpecError(why);
  bool to_server = spec.direction == Direction::kBoth || spec.direction == Direction::kToServer;
  bool to_client = spec.direction == Direction::kBoth || spec.direction == Direction::kToClient;
  NftEnd end{ifname_, "to-client", "to-server", to_client, to_server};
  host_.run(removal(sudo_));  // a table a killed run left would double the rules
  for (const auto& cmd : nft_commands(spec, end)) {
    CommandResult r = host_.run(as_root(cmd));
    if (r.exit_code != 0)
      throw CommandError(fmt::format("on {}: `{}` failed: {}", host_.target().text(), shell_line(cmd), r.err));
  }
}

// One end's counters: to-server is counted where it arrives (offered =
// arrived there), to-client where it leaves (delivered = offered + copies).
LinkCounters RemoteNftFaults::read_counters() {
  CommandResult r = host_.run(as_root({"nft", "-j", "list", "table", "netdev", kNftTable}));
  if (r.exit_code != 0) throw CommandError("on " + host_.target().text() + ": nft list failed: " + r.err);
  auto c = parse_nft_counters(r.out);
  LinkCounters out;
  out.source = "nft rule counters on the server's " + ifname_ + " (egress: to-client offered, dup; ingress: "
               "to-server arrived, drop)";
  out.to_server.offered = c["to-server arrived"].packets;
  out.to_server.dropped = c["to-server drop"].packets;
  out.to_server.delivered = out.to_server.offered - out.to_server.dropped;
  out.to_client.offered = c["to-client offered"].packets;
  out.to_client.duplicated = c["to-client dup"].packets;
  out.to_client.delivered = out.to_client.offered + out.to_client.duplicated;
  return out;
}

std::string RemoteNftFaults::state() {
  return fmt::format("# {} ({}): nft list table netdev {}\n", host_.target().text(), ifname_, kNftTable) +
         host_.run(as_root({"nft", "list", "table", "netdev", kNftTable})).out;
}

}  // namespace rpclab::netem
