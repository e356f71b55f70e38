#include "netem/events/link_events.h"

#include <fmt/format.h>

#include <stdexcept>

#include "netem/events/link_event_rules.h"
#include "netem/faults/fault_backend.h"
#include "netem/faults/nft_rules.h"
#include "process/command_runner.h"

namespace rpclab::netem {

namespace {

// Each end of the link, and the direction its ingress receives.
struct End {
  const Host* host;
  const Host* peer;
  const char* receives;
};
std::vector<End> ends(const Topology& t) {
  return {{&t.server(), &t.client(), "to_server"}, {&t.client(), &t.server(), "to_client"}};
}
// The end that receives what goes `toward` it (kToServer or kToClient).
std::vector<End> receiving_end(const Topology& t, Direction toward) {
  std::vector<End> both = ends(t);
  return {both[toward == Direction::kToServer ? 0 : 1]};
}

uint64_t nft_rule_packets(FaultBackend& b, const Host& h, const char* table, const char* comment) {
  auto counters = parse_nft_counters(process::run_checked(nft_list_table_argv(table), b.log(), h.netns).out);
  return counters[comment].packets;
}

// Starts: a table per end with `rule`; ends: both ends' counters first,
// then both tables go, so the two directions open within one command of
// each other.
nlohmann::json nft_event(FaultBackend& b, const std::vector<End>& at, EventPhase phase, const char* table,
                         const char* rule, const char* comment, const char* counted) {
  nlohmann::json did = {{"tool", "nft"}};
  for (const End& e : at) {
    if (phase == EventPhase::kStart)
      process::run_checked(nft_event_table_argv(table, e.host->ifname, rule, comment), b.log(), e.host->netns);
    else
      did[fmt::format("{}_{}", counted, e.receives)] = nft_rule_packets(b, *e.host, table, comment);
  }
  if (phase == EventPhase::kEnd)
    for (const End& e : at) process::run_checked(nft_delete_table_argv(table), b.log(), e.host->netns);
  return did;
}

nlohmann::json tc_partition(FaultBackend& b, const std::vector<End>& at, EventPhase phase) {
  nlohmann::json did = {{"tool", "tc"}};
  for (const End& e : at) {
    if (phase == EventPhase::kStart) {
      for (const auto& argv : tc_partition_argvs(e.host->ifname)) process::run_checked(argv, b.log(), e.host->netns);
      continue;
    }
    std::string listed = process::run_checked(tc_list_ingress_argv(e.host->ifname), b.log(), e.host->netns).out;
    did[std::string("dropped_") + e.receives] = parse_tc_dropped(listed);
  }
  if (phase == EventPhase::kEnd)
    for (const End& e : at) process::run_checked(tc_remove_ingress_argv(e.host->ifname), b.log(), e.host->netns);
  return did;
}

// Reset by iptables (the netem backend): each end's chain made at the
// start; at the end both ends' counts read, then both chains go.
nlohmann::json iptables_reset(FaultBackend& b, EventPhase phase) {
  nlohmann::json did = {{"tool", "iptables"}};
  for (const End& e : ends(b.topology())) {
    if (phase == EventPhase::kStart) {
      for (const auto& argv : iptables_reset_argvs(e.host->ifname)) process::run_checked(argv, b.log(), e.host->netns);
      continue;
    }
    std::string listed = process::run_checked(iptables_list_reset_argv(), b.log(), e.host->netns).out;
    did[std::string("reset_") + e.receives] = parse_iptables_packets(listed);
  }
  if (phase == EventPhase::kEnd)
    for (const End& e : ends(b.topology()))
      for (const auto& argv : iptables_remove_reset_argvs()) process::run_checked(argv, b.log(), e.host->netns);
  return did;
}

}  // namespace

// Every packet either way dropped at the receiving end; the end reports how
// many each end dropped.
nlohmann::json apply_partition(EventTargets& t, const FaultEvent&, EventPhase phase) {
  FaultBackend& b = *t.link;
  if (b.kind() == BackendKind::kNftables)
    return nft_event(b, ends(b.topology()), phase, kPartitionTable, "counter drop", "partition", "dropped");
  return tc_partition(b, ends(b.topology()), phase);
}

nlohmann::json apply_one_way_drop(FaultBackend& b, Direction toward, EventPhase phase) {
  if (toward == Direction::kBoth) throw std::invalid_argument("a one-way drop goes one way: to-server or to-client");
  std::vector<End> at = receiving_end(b.topology(), toward);
  if (b.kind() == BackendKind::kNftables)
    return nft_event(b, at, phase, kOneWayTable, "counter drop", "one-way", "dropped");
  return tc_partition(b, at, phase);
}

// At the start, `ss -K` in the server's namespace, then in the client's:
// the kernel closes each socket and sends its peer a reset. With for=, every
// TCP segment that arrives at either end meanwhile is answered with a reset
// (connections made again die at once; new ones are refused); the end
// reports how many were answered so.
//
// The netem backend (the user-mode-linux guest: no `ss -K`, no nft netdev)
// resets with an iptables REJECT --reject-with tcp-reset rule at each end
// for for= ms: the next segment either way kills the connection, and the
// end reports how many segments were answered so (`reset_to_server`,
// `reset_to_client`). It needs for= (an instant has no segment to answer).
nlohmann::json apply_reset(EventTargets& t, const FaultEvent& event, EventPhase phase) {
  FaultBackend& b = *t.link;
  if (b.kind() != BackendKind::kNftables) {
    if (event.for_ms <= 0)
      throw std::runtime_error("reset on the " + std::string(backend_name(b.kind())) +
                               " backend is an iptables tcp-reset rule that lasts for= ms: give it for= (no ss -K "
                               "here)");
    return iptables_reset(b, phase);
  }
  // Resets themselves pass: both ends have the rule, and a reset answered
  // (dropped) at the other end would never reach its socket.
  const char* rule = "tcp flags & rst == 0 counter reject with tcp reset";
  if (phase == EventPhase::kEnd) return nft_event(b, ends(b.topology()), phase, kResetTable, rule, "reset", "reset");
  nlohmann::json did = event.for_ms > 0 ? nft_event(b, ends(b.topology()), phase, kResetTable, rule, "reset", "reset")
                                        : nlohmann::json{{"tool", "ss"}};
  size_t closed = 0;
  for (const End& e : ends(b.topology())) {
    size_t n = count_socket_lines(process::run_checked(ss_kill_argv(e.peer->address), b.log(), e.host->netns).out);
    did[std::string("closed_at_") + (e.host == &b.topology().server() ? "server" : "client")] = n;
    closed += n;
  }
  // ss -K skips silently what the kernel cannot close. It closing none is
  // not that: the rule above may have reset every connection before ss -K
  // looked. A connection still established after it is.
  size_t still_established = 0;
  if (closed == 0)
    for (const End& e : ends(b.topology()))
      still_established +=
          count_socket_lines(process::run_checked(ss_established_argv(e.peer->address), b.log(), e.host->netns).out);
  if (still_established > 0)
    did["warning"] = fmt::format(
        "ss -K closed none of the {} established connections: the kernel needs CONFIG_INET_DIAG_DESTROY=y",
        still_established);
  return did;
}

}  // namespace rpclab::netem
