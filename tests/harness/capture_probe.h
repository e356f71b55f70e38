// Whether this machine can run a wire capture, asked of the kernel and of
// netem's probe, never of the run under test: where it can, a cell that
// recorded no capture is the product's failure, not a skip (issue 43: a
// broken eBPF capture used to pass as SKIPPED).
#pragma once

#include <sys/utsname.h>

#include <cstdio>
#include <string>

#include "netem/netem_test_util.h"

namespace rpclab::test {

// "" when `backend` ("bpf", "nflog", or "on": either) can run here, else
// why not. The eBPF backend attaches with tcx, which came in Linux 6.6
// (harness/causes/wire_capture.h); nflog needs nftables' netdev hooks.
inline std::string why_no_capture_here(const std::string& backend) {
  if (auto why = netem::testing::why_not_namespaces(); !why.empty()) return why;
  utsname u{};
  int major = 0, minor = 0;
  bool bpf = ::uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
             (major > 6 || (major == 6 && minor >= 6));
  bool nflog = netem::testing::caps().nftables;
  if (backend == "bpf" && !bpf)
    return std::string("the eBPF capture attaches with tcx, which needs Linux 6.6 or later; this kernel is ") +
           u.release;
  if (backend == "nflog" && !nflog) return netem::testing::why_not_nftables();
  if (backend == "on" && !bpf && !nflog)
    return std::string("neither capture can run on this kernel (") + u.release + "): " +
           netem::testing::why_not_nftables();
  return "";
}

}  // namespace rpclab::test
