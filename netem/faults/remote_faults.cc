#include "netem/faults/remote_faults.h"

#include <set>
#include <sstream>

#include <fmt/format.h>

#include "netem/faults/nft_rules.h"
#include "netem/spec/fault_fields.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {
namespace {

bool to_server(const FaultSpec& spec) {
  return spec.direction == Direction::kBoth || spec.direction == Direction::kToServer;
}
bool to_client(const FaultSpec& spec) {
  return spec.direction == Direction::kBoth || spec.direction == Direction::kToClient;
}

std::string as_root(const std::string& sudo, const std::vector<std::string>& argv) {
  return (sudo.empty() ? "" : sudo + " ") + process::shell_line(argv);
}

// Each command through ssh, as root there; a failure names the host and the command.
void run_all(process::RemoteHost& host, const std::string& sudo, const std::vector<std::vector<std::string>>& commands) {
  for (const auto& cmd : commands) {
    process::CommandResult r = host.run(as_root(sudo, cmd));
    if (r.exit_code != 0)
      throw process::CommandError(fmt::format("on {}: `{}` failed: {}", host.target().text(), process::shell_line(cmd), r.err));
  }
}

// The netem qdisc's stats on `dev` there; none found when the device is
// not there (the ifb of a spec that leaves to-server alone).
QdiscStats qdisc_stats(process::RemoteHost& host, const std::string& sudo, const std::string& dev) {
  process::CommandResult r = host.run(as_root(sudo, {"tc", "-s", "-j", "qdisc", "show", "dev", dev}));
  return r.exit_code == 0 && !r.out.empty() ? parse_netem_stats(r.out) : QdiscStats{};
}

}  // namespace

std::string remote_netem_probe_line() {
  return "PATH=$PATH:/usr/sbin:/sbin; command -v tc >/dev/null && echo tc; for m in sch_netem ifb; do "
         "{ [ -d /sys/module/$m ] || modprobe -n -q $m; } 2>/dev/null && echo $m; done; true";
}

Choice choose_remote_faults(const std::string& probe_output) {
  std::set<std::string> has;
  std::istringstream lines(probe_output);
  for (std::string line; std::getline(lines, line);) has.insert(line);
  std::string missing;
  for (const char* what : {"tc", "sch_netem", "ifb"})
    if (!has.count(what)) missing += (missing.empty() ? "" : ", ") + std::string(what);
  if (missing.empty())
    return {BackendKind::kNetem, "tc netem there (its kernel has sch_netem and ifb): egress on the interface, "
                                 "ingress through " + std::string(kRemoteIfb)};
  return {BackendKind::kNftables, "nftables there: no " + missing + " on that host"};
}

std::string remote_fault_refusal(const FaultSpec& spec, BackendKind kind) {
  if (!spec.events.empty())
    return "timed events (partitions, resets, server crashes) are not applied on a remote host yet: leave out the "
           "profile's events";
  std::vector<std::string> no = unsupported_by(spec, kind);
  if (!no.empty()) {
    std::string what;
    for (const std::string& w : no) what += (what.empty() ? "" : ", ") + w;
    return "the remote host's faults are made by " + backend_name(kind) + " (its kernel has no sch_netem or ifb), "
           "which cannot apply " + what + ": give only --loss and --dup";
  }
  if (kind != BackendKind::kNftables) return "";
  if (spec.dup_pct > 0 && to_server(spec))
    return "the server's end can duplicate only what it sends with nftables (its kernel has no netem): give "
           "--direction to-client for --dup (a copy of a request needs the client's end, which rpclab leaves alone "
           "on this machine)";
  if (spec.loss_pct > 0 && to_client(spec))
    return "the server's end drops only what it receives with nftables (its kernel has no netem): give "
           "--direction to-server for --loss";
  return "";
}

std::vector<std::vector<std::string>> remote_netem_commands(const FaultSpec& spec, const std::string& ifname,
                                                            bool with_seed) {
  std::vector<std::vector<std::string>> c;
  if (to_client(spec)) c.push_back(netem_qdisc_argv(spec, ifname, with_seed));
  if (to_server(spec)) {
    c.push_back({"ip", "link", "add", kRemoteIfb, "type", "ifb"});
    c.push_back({"ip", "link", "set", "dev", kRemoteIfb, "up"});
    c.push_back({"tc", "qdisc", "replace", "dev", ifname, "handle", "ffff:", "ingress"});
    c.push_back({"tc", "filter", "add", "dev", ifname, "parent", "ffff:", "protocol", "all", "matchall", "action",
                 "mirred", "egress", "redirect", "dev", kRemoteIfb});
    c.push_back(netem_qdisc_argv(spec, kRemoteIfb, with_seed));
  }
  return c;
}

// The root qdisc goes only if it is netem (ours): a user's own is left.
std::string remote_fault_removal(const std::string& ifname, const std::string& sudo) {
  std::string s = sudo.empty() ? "" : sudo + " ";
  std::string dev = process::shell_line({ifname});
  return fmt::format("{0}tc qdisc show dev {1} root 2>/dev/null | grep -q netem && {0}tc qdisc del dev {1} root; "
                     "{0}tc qdisc del dev {1} ingress 2>/dev/null; {0}ip link del {2} 2>/dev/null; "
                     "{0}nft delete table netdev {3} 2>/dev/null; true",
                     s, dev, kRemoteIfb, kNftTable);
}

void RemoteNftFaults::apply(const FaultSpec& spec) {
  if (std::string why = remote_fault_refusal(spec, kind()); !why.empty()) throw SpecError(why);
  NftEnd end{ifname_, "to-client", "to-server", to_client(spec), to_server(spec)};
  host_.run(remote_fault_removal(ifname_, sudo_));  // what a killed run left would double the rules
  run_all(host_, sudo_, nft_commands(spec, end));
}

// One end's counters: to-server is counted where it arrives (offered =
// arrived there), to-client where it leaves (delivered = offered + copies).
LinkCounters RemoteNftFaults::read_counters() {
  process::CommandResult r = host_.run(as_root(sudo_, {"nft", "-j", "list", "table", "netdev", kNftTable}));
  if (r.exit_code != 0) throw process::CommandError("on " + host_.target().text() + ": nft list failed: " + r.err);
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
         host_.run(as_root(sudo_, {"nft", "list", "table", "netdev", kNftTable})).out;
}

void RemoteNetemFaults::apply(const FaultSpec& spec) {
  if (std::string why = remote_fault_refusal(spec, kind()); !why.empty()) throw SpecError(why);
  std::string usage = host_.run(as_root(sudo_, {"tc", "qdisc", "add", "dev", "lo", "root", "netem", "help"})).err;
  bool tc_has_seed = netem_usage_has_seed(usage);
  seed_applied_ = tc_has_seed && spec.seed.has_value();
  host_.run(remote_fault_removal(ifname_, sudo_));  // what a killed run left
  run_all(host_, sudo_, remote_netem_commands(spec, ifname_, tc_has_seed));
  baseline_to_server_ = read_to_server();
  baseline_to_client_ = read_to_client();
}

// to-server: what the interface handed the ifb (offered) and what the
// ifb's netem sent on (delivered); stats of the ifb's netem qdisc.
NetemReading RemoteNetemFaults::read_to_server() {
  NetemReading r;
  r.qdisc = qdisc_stats(host_, sudo_, kRemoteIfb);
  process::CommandResult ifb = host_.run(process::shell_line({"ip", "-s", "-j", "link", "show", "dev", kRemoteIfb}));
  if (ifb.exit_code == 0) {
    InterfaceStats s = parse_interface_stats(ifb.out);
    r.offered = s.rx_packets;
    r.delivered_packets = s.tx_packets;
    r.delivered_bytes = s.tx_bytes;
  }
  return r;
}

// to-client: what the server's IP sent (offered: the host's Ip.OutRequests,
// so it counts the ssh session's packets too) and what left the interface.
NetemReading RemoteNetemFaults::read_to_client() {
  NetemReading r;
  r.qdisc = qdisc_stats(host_, sudo_, ifname_);
  r.offered = parse_snmp(host_.run_checked("cat /proc/net/snmp").out)["Ip.OutRequests"];
  InterfaceStats s = parse_interface_stats(host_.run_checked(process::shell_line({"ip", "-s", "-j", "link", "show", "dev",
                                                                         ifname_})).out);
  r.delivered_packets = s.tx_packets;
  r.delivered_bytes = s.tx_bytes;
  return r;
}

LinkCounters RemoteNetemFaults::read_counters() {
  LinkCounters c;
  c.source = "tc -s qdisc on the server's " + ifname_ + " (to-client) and " + kRemoteIfb + " (to-server), its "
             "Ip.OutRequests (to-client offered, host-wide) and interface counters";
  c.to_server = netem_direction_counters(baseline_to_server_, read_to_server());
  c.to_client = netem_direction_counters(baseline_to_client_, read_to_client());
  return c;
}

std::string RemoteNetemFaults::state() {
  std::string out;
  for (const std::string& dev : {ifname_, std::string(kRemoteIfb)})
    out += fmt::format("# {} ({}): tc -s qdisc show dev {}\n", host_.target().text(), dev, dev) +
           host_.run(as_root(sudo_, {"tc", "-s", "qdisc", "show", "dev", dev})).out;
  return out;
}

std::unique_ptr<LinkFaults> make_remote_faults(BackendKind kind, process::RemoteHost& host, const std::string& ifname,
                                               const std::string& sudo) {
  if (kind == BackendKind::kNetem) return std::make_unique<RemoteNetemFaults>(host, ifname, sudo);
  return std::make_unique<RemoteNftFaults>(host, ifname, sudo);
}

}  // namespace rpclab::netem
