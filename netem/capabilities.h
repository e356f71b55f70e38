// What this machine and user can do, probed once: the harness picks a
// backend from it and `rpclab doctor` prints it.
#pragma once

#include <string>
#include <vector>

namespace rpclab::netem {

struct Capabilities {
  bool root = false;              // effective uid 0 (capabilities alone are not checked)
  bool netns = false;             // `ip netns add` works
  bool host_netem = false;        // sch_netem loads on this kernel
  bool nftables = false;          // nft with the netdev family works here
  bool uml = false;               // /usr/bin/linux.uml and its netem/veth modules exist
  std::string uml_kernel;         // e.g. "6.1.176"
  bool rpcbind = false;           // rpcbind and rpcinfo are installed
  bool sockperf = false;
  bool gnuplot = false;
  int cpus = 1;
  std::vector<std::string> notes;  // what will be skipped and why, one line each
};

Capabilities probe_capabilities();
std::string describe(const Capabilities& caps);  // the `rpclab doctor` report

}  // namespace rpclab::netem
