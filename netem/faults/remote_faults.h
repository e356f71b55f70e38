// Faults on one interface of a remote host (--server-host), made there by
// that host's kernel through the ssh connection. With one end of the link
// ours, both directions are impaired at that end, by one of two backends:
//
// - tc netem where the remote kernel has sch_netem and ifb: what the server
//   sends (to-client) through a netem root qdisc on the interface, what it
//   receives (to-server) redirected from the interface's ingress through an
//   ifb device with a netem qdisc: so every field the local netem applies
//   (loss, duplication, delay, reordering, rate) applies there, with the
//   same argument vectors (netem_qdisc.h).
// - else nftables, with the rules of nft_rules.h: what the server sends is
//   duplicated on its egress, what it receives dropped on its ingress.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "netem/faults/fault_backend.h"
#include "netem/faults/netem_qdisc.h"
#include "process/remote_host.h"

namespace rpclab::netem {

// The shell line that asks the remote what it has for netem; its output
// goes to choose_remote_faults. It loads nothing and touches no interface.
std::string remote_netem_probe_line();
// netem where sch_netem and ifb are there (loaded or loadable) and tc is.
Choice choose_remote_faults(const std::string& probe_output);

// "" when `kind` at the server's end can apply `spec`, else what it cannot
// and what to do instead. Pure, for the command line's checks.
std::string remote_fault_refusal(const FaultSpec& spec, BackendKind kind);

// The ifb device that carries the server's ingress through netem.
inline constexpr const char* kRemoteIfb = "rpclab-ifb0";
// tc/ip commands that put `spec` on `ifname` at the server's end.
std::vector<std::vector<std::string>> remote_netem_commands(const FaultSpec& spec, const std::string& ifname,
                                                            bool with_seed);
// The shell line that removes what either backend put on `ifname` (a netem
// root qdisc only if it is netem, the ingress qdisc, the ifb device, the
// nft table): the dead-man switch's, the cleanup's. `sudo`: "" or "sudo -n".
std::string remote_fault_removal(const std::string& ifname, const std::string& sudo);

class RemoteNftFaults : public LinkFaults {
 public:
  // `sudo`: "" as root there, else the prefix ("sudo -n") that makes nft root.
  RemoteNftFaults(process::RemoteHost& host, std::string ifname, std::string sudo)
      : host_(host), ifname_(std::move(ifname)), sudo_(std::move(sudo)) {}
  BackendKind kind() const override { return BackendKind::kNftables; }
  void apply(const FaultSpec& spec) override;
  LinkCounters read_counters() override;
  std::string state() override;
  bool seed_applied() const override { return false; }  // numgen random takes no seed

 private:
  process::RemoteHost& host_;
  std::string ifname_, sudo_;
};

// UNTESTED on a real netem kernel: none here has sch_netem (see docs/multi-host.md).
class RemoteNetemFaults : public LinkFaults {
 public:
  RemoteNetemFaults(process::RemoteHost& host, std::string ifname, std::string sudo)
      : host_(host), ifname_(std::move(ifname)), sudo_(std::move(sudo)) {}
  BackendKind kind() const override { return BackendKind::kNetem; }
  void apply(const FaultSpec& spec) override;
  LinkCounters read_counters() override;
  std::string state() override;
  bool seed_applied() const override { return seed_applied_; }

 private:
  NetemReading read_to_server();
  NetemReading read_to_client();
  process::RemoteHost& host_;
  std::string ifname_, sudo_;
  bool seed_applied_ = false;
  NetemReading baseline_to_server_, baseline_to_client_;
};

// One factory for the two: `kind` is what choose_remote_faults chose.
std::unique_ptr<LinkFaults> make_remote_faults(BackendKind kind, process::RemoteHost& host, const std::string& ifname,
                                               const std::string& sudo);

}  // namespace rpclab::netem
