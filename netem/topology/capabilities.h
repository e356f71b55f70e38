// What this machine and user can do, probed once: the harness picks a
// backend from it and `rpclab doctor` prints it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rpclab::netem {

// Each kernel feature is tried for real, in a throwaway namespace, and only
// as root; without root (or without a namespace to try in) it stays false
// and `describe` says it was not checked rather than "no".
struct Capabilities {
  bool root = false;              // effective uid 0 (capabilities alone are not checked)
  bool netns = false;             // `ip netns add` works (tried as root only)
  bool host_netem = false;        // a netem qdisc can be added (tried in that namespace only)
  bool nftables = false;          // nft with the netdev family works here (tried in that namespace only)
  bool uml = false;               // /usr/bin/linux.uml, its netem/veth modules and busybox exist (not booted)
  std::string uml_kernel;         // e.g. "6.1.176"
  bool rpcbind_installed = false;       // rpcbind and rpcinfo are installed
  std::optional<bool> rpcbind_running;  // a portmapper answers `rpcinfo -p`; unset when rpcinfo is missing
  bool sockperf = false;          // installed (not run)
  bool gnuplot = false;           // installed (not run)
  int cpus = 1;
  std::vector<std::string> notes;  // what the probe found missing for uml-netem, one line each
};

Capabilities probe_capabilities();
// What they mean to a person and to a record: capabilities_report.h.

}  // namespace rpclab::netem
