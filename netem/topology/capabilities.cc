#include "netem/topology/capabilities.h"

#include <unistd.h>

#include <thread>

#include "process/command_runner.h"
#include "netem/topology/topology.h"
#include "netem/topology/uml_guest.h"

namespace rpclab::netem {

namespace {

bool ok(const std::vector<std::string>& argv, process::CommandLog& log, const std::string& netns = "") {
  try {
    return process::run(argv, log, netns).exit_code == 0;
  } catch (const process::CommandError&) {
    return false;  // the tool is not installed
  }
}

bool installed(const std::string& name) { return process::tool_path(name).find('/') != std::string::npos; }

// Each kernel feature is tried in a throwaway namespace of our own, never
// on the host's interfaces: netem on that namespace's lo, the nft rules on a
// veth pair that lives only there.
void probe_kernel(Capabilities& c, process::CommandLog& log) {
  std::string ns = std::string(kNamespacePrefix) + std::to_string(::getpid()) + "-probe";
  c.netns = ok({"ip", "netns", "add", ns}, log);
  if (!c.netns) return;
  ok({"modprobe", "-q", "sch_netem"}, log);
  c.host_netem = ok({"tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"}, log, ns);
  c.nftables = ok({"ip", "-n", ns, "link", "add", "p0", "type", "veth", "peer", "name", "p1"}, log) &&
               ok({"nft", "add", "table", "netdev", "probe"}, log, ns) &&
               ok({"nft", "add", "chain", "netdev", "probe", "e", "{ type filter hook egress device \"p0\" priority 0 ; }"}, log, ns) &&
               ok({"nft", "add", "rule", "netdev", "probe", "e", "numgen", "random", "mod", "100", "<", "1", "counter",
                   "dup", "to", "\"p0\""}, log, ns) &&
               ok({"nft", "add", "chain", "netdev", "probe", "i", "{ type filter hook ingress device \"p1\" priority 0 ; }"}, log, ns) &&
               ok({"nft", "add", "rule", "netdev", "probe", "i", "numgen", "random", "mod", "100", "<", "1", "counter",
                   "drop"}, log, ns);
  ok({"ip", "netns", "delete", ns}, log);
}

void probe_uml(Capabilities& c) {
  c.uml_kernel = find_uml_modules_version();
  bool kernel = ::access(kUmlKernel, X_OK) == 0;
  bool busybox = installed("busybox");
  c.uml = kernel && !c.uml_kernel.empty() && busybox;
  if (!kernel) c.notes.push_back("uml-netem: no /usr/bin/linux.uml (apt-get install user-mode-linux)");
  else if (c.uml_kernel.empty()) c.notes.push_back("uml-netem: no sch_netem.ko + veth.ko under /usr/lib/uml/modules");
  else if (!busybox) c.notes.push_back("uml-netem: no busybox to power the guest off (apt-get install busybox-static)");
  else if (find_xstate_shim().empty())
    c.notes.push_back("uml-netem: rpclab-uml-xstate.so not built; on AVX-512 hosts the guest panics at boot");
}

// Asks the local portmapper, as `rpclab-server --rpcbind` would. rpcinfo
// waits up to a minute for a portmapper that accepts and never answers.
std::optional<bool> rpcbind_answers(process::CommandLog& log) {
  if (!installed("rpcinfo")) return std::nullopt;
  return ok({"timeout", "5", process::tool_path("rpcinfo"), "-p"}, log);
}

}  // namespace

Capabilities probe_capabilities() {
  Capabilities c;
  process::CommandLog log;  // in memory: a probe is not part of any run
  c.root = ::geteuid() == 0;
  if (c.root) probe_kernel(c, log);
  probe_uml(c);
  c.rpcbind_installed = installed("rpcbind") && installed("rpcinfo");
  c.rpcbind_running = rpcbind_answers(log);
  c.sockperf = installed("sockperf");
  c.gnuplot = installed("gnuplot");
  c.cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (c.cpus < 1) c.cpus = 1;
  return c;
}

}  // namespace rpclab::netem
