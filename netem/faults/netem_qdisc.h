// tc netem, as argument vectors and as counters: what the netem backend
// runs and what it reads back. Pure functions, tested on captured output.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netem/faults/link_counters.h"
#include "netem/spec/fault_spec.h"

namespace rpclab::netem {

// `tc qdisc replace dev IF root netem limit 10000 delay ... loss ... duplicate ...`.
// The seed is added only when this tc knows the option (`with_seed`).
std::vector<std::string> netem_qdisc_argv(const FaultSpec& spec, const std::string& ifname, bool with_seed);

// Whether `tc ... netem help` (its usage text) lists the seed option.
bool netem_usage_has_seed(const std::string& usage);

struct QdiscStats {
  bool found = false;   // a netem qdisc was listed
  uint64_t packets = 0; // sent (dequeued) by the qdisc
  uint64_t bytes = 0;
  uint64_t drops = 0;
  uint64_t qlen = 0;    // still queued (delayed) when read
};
// From `tc -s -j qdisc show dev IF`. Throws std::runtime_error on bad JSON.
QdiscStats parse_netem_stats(const std::string& json_text);

struct InterfaceStats {
  uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0;
};
// From `ip -s -j link show dev IF`. Throws std::runtime_error on bad JSON.
InterfaceStats parse_interface_stats(const std::string& json_text);
// `ifname`'s line of /proc/net/dev (the same 64-bit counters, read without
// starting a program); nullopt when it has none.
std::optional<InterfaceStats> parse_net_dev(const std::string& text, const std::string& ifname);

// From /proc/net/snmp: {"Ip.OutRequests": n, "Udp.RcvbufErrors": n, ...}.
std::map<std::string, uint64_t> parse_snmp(const std::string& text);

// One direction through a netem qdisc, raw and cumulative: the qdisc's
// own stats, what the sender offered, what the receiving side counted.
struct NetemReading {
  QdiscStats qdisc;
  uint64_t offered = 0;
  uint64_t delivered_packets = 0, delivered_bytes = 0;
};
// The direction's counters between two readings. netem has no duplicate
// counter: what left the qdisc (or waits in it) beyond what came in and
// was not dropped are the copies it made.
DirectionCounters netem_direction_counters(const NetemReading& before, const NetemReading& now);

}  // namespace rpclab::netem
