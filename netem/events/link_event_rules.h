// The link events' commands, as argument vectors, and the readers of what
// they count: what link_events.cc runs. Pure functions, tested on captured
// output.
//
// Each link event has a table (nftables) or an ingress qdisc (tc) of its own
// in each host's namespace, made when it starts and deleted when it ends,
// so it never touches the steady faults' table and a killed run leaves it
// only in namespaces the next run deletes. Packets are dropped at the
// receiver's ingress, for the reason nft_rules.h gives: a drop at egress
// would reach libtirpc as ENOBUFS, a reported error rather than a silent one.
// The nft chain has priority 10, after the steady faults' chain (0), so
// their counters see every packet the sender offered and measured loss
// stays the steady loss.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rpclab::netem {

inline constexpr const char* kPartitionTable = "rpclab-partition";
inline constexpr const char* kResetTable = "rpclab-reset";
inline constexpr const char* kOneWayTable = "rpclab-one-way";

// One nft argv that makes `table` with an ingress chain on `ifname` holding
// one rule `body` ... `counter` ... with `comment` (nft takes several
// commands in one argument, separated by ';').
std::vector<std::string> nft_event_table_argv(const std::string& table, const std::string& ifname,
                                              const std::string& rule, const std::string& comment);
std::vector<std::string> nft_list_table_argv(const std::string& table);    // nft -j list table netdev T
std::vector<std::string> nft_delete_table_argv(const std::string& table);

// Partition by tc, for the netem backend (the user-mode-linux guest's
// kernel has nf_tables for bridges only: no netdev, inet or ip family): an
// ingress qdisc with one matchall filter whose gact action drops, and its
// removal.
std::vector<std::vector<std::string>> tc_partition_argvs(const std::string& ifname);
std::vector<std::string> tc_list_ingress_argv(const std::string& ifname);  // tc -s -j filter show dev IF ingress
std::vector<std::string> tc_remove_ingress_argv(const std::string& ifname);
// Packets the gact drop actions counted, from tc_list_ingress_argv's output.
// Throws std::runtime_error on bad JSON.
uint64_t parse_tc_dropped(const std::string& json_text);

// `ss -K` closes every TCP socket whose peer is `peer` (the kernel sends the
// peer a reset; needs CONFIG_INET_DIAG_DESTROY) and prints each one it
// closed; `ss` without -K lists the established ones.
std::vector<std::string> ss_kill_argv(const std::string& peer);
std::vector<std::string> ss_established_argv(const std::string& peer);
size_t count_socket_lines(const std::string& ss_output);
// The same for every TCP connection of a namespace, whoever the peer
// (server-reset: one server's own namespace). "connected" is every state
// but listening and closed: the listening socket stays, so the server
// accepts new connections at once.
std::vector<std::string> ss_kill_connected_argv();
std::vector<std::string> ss_connected_argv();

// server-slow: a netem qdisc that delays every packet `ifname` sends (the
// root qdisc of one replica's own link, which no steady fault uses), and
// its removal.
std::vector<std::string> tc_delay_argv(const std::string& ifname, int64_t delay_ms);
std::vector<std::string> tc_remove_root_argv(const std::string& ifname);  // one socket per non-empty line (-H: no header)

// Reset by iptables, for the netem backend (the user-mode-linux guest has
// neither nft's netdev family nor `ss -K`, CONFIG_INET_DIAG_DESTROY): a
// chain of its own, kResetChain, jumped to first from INPUT, that answers
// every TCP segment arriving on `ifname` (but resets) with a reset, and its
// removal. iptables-legacy: the guest's nf_tables has no ipv4 family.
inline constexpr const char* kResetChain = "rpclab-reset";
std::vector<std::vector<std::string>> iptables_reset_argvs(const std::string& ifname);
std::vector<std::string> iptables_list_reset_argv();  // iptables -L rpclab-reset -v -x -n
std::vector<std::vector<std::string>> iptables_remove_reset_argvs();
// Packets the chain's rules answered, from iptables_list_reset_argv's
// output. Throws std::runtime_error when no rule line is there.
uint64_t parse_iptables_packets(const std::string& listing);

}  // namespace rpclab::netem
