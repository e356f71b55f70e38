// Faults on one interface of a remote host (--server-host), made there by
// that host's kernel through the ssh connection. With one end of the link
// ours, both directions are impaired at that end with the nftables rules
// of nft_rules.h (the same commands the local backend runs, sent over ssh):
// what the server sends (to-client) is duplicated on its egress, what it
// receives (to-server) dropped on its ingress. Counters are that end's.
#pragma once

#include <string>

#include "netem/fault_backend.h"
#include "netem/remote_host.h"

namespace rpclab::netem {

// "" when the server's end alone can apply `spec`, else what it cannot and
// what to do instead. Pure, for the command line's checks.
std::string remote_fault_refusal(const FaultSpec& spec);

class RemoteNftFaults : public LinkFaults {
 public:
  // `sudo`: "" as root there, else the prefix ("sudo -n") that makes nft root.
  RemoteNftFaults(RemoteHost& host, std::string ifname, std::string sudo)
      : host_(host), ifname_(std::move(ifname)), sudo_(std::move(sudo)) {}
  BackendKind kind() const override { return BackendKind::kNftables; }
  void apply(const FaultSpec& spec) override;
  LinkCounters read_counters() override;
  std::string state() override;
  bool seed_applied() const override { return false; }  // numgen random takes no seed
  // The shell line that removes them again: the dead-man switch's and the cleanup's.
  static std::string removal(const std::string& sudo);

 private:
  std::string as_root(const std::vector<std::string>& argv) const;
  RemoteHost& host_;
  std::string ifname_, sudo_;
};

}  // namespace rpclab::netem
