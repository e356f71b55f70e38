// nftables loss and duplication, as argument vectors and as counters: what
// the nftables backend runs and what it reads back. Pure functions.
//
// Per namespace one table `netdev rpclab` with two base chains on the veth:
//   egress  (this host sends):    counter "D offered"; dup rule "D dup"
//   ingress (this host receives): counter "D arrived"; drop rule "D drop"
// where D is the direction ("to-server", "to-client"). Loss is dropped at the
// receiver's ingress because an egress drop makes sendto() fail with ENOBUFS
// under IP_RECVERR (libtirpc sets it), turning a silent loss into a reported
// error. The copy `dup` makes passes the egress hook again: it carries a
// mark so it is neither counted as offered nor duplicated again.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "netem/spec/fault_spec.h"

namespace rpclab::netem {

inline constexpr const char* kNftTable = "rpclab";
// The mark on the copies `dup` makes ("RPLB"): the rules set it, and the
// wire capture tells a copy from its original by it.
inline constexpr uint32_t kNftDupMark = 0x52504c42;

// numgen random mod 1000000 < threshold: 5% -> 50000.
uint32_t nft_threshold(double pct);

// The commands (each an nft argv) that build the table in the namespace of
// one end of the link. `sends` / `receives` are the directions this end
// sends and receives ("to-server" / "to-client"); `impair_*` says whether the
// spec impairs that direction.
struct NftEnd {
  std::string ifname;
  std::string sends, receives;
  bool impair_sends = false, impair_receives = false;
};
std::vector<std::vector<std::string>> nft_commands(const FaultSpec& spec, const NftEnd& end);

struct NftCounter {
  uint64_t packets = 0, bytes = 0;
};
// From `nft -j list table netdev rpclab`: rule comment -> its counter.
// Throws std::runtime_error on bad JSON.
std::map<std::string, NftCounter> parse_nft_counters(const std::string& json_text);

}  // namespace rpclab::netem
