#include "netem/capabilities.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <thread>

#include <fmt/format.h>

#include "netem/command_runner.h"
#include "netem/topology.h"
#include "netem/uml_guest.h"

namespace rpclab::netem {

namespace {

bool ok(const std::vector<std::string>& argv, CommandLog& log, const std::string& netns = "") {
  try {
    return run(argv, log, netns).exit_code == 0;
  } catch (const CommandError&) {
    return false;  // the tool is not installed
  }
}

bool installed(const std::string& name) { return tool_path(name).find('/') != std::string::npos; }

// Each kernel feature is tried in a throwaway namespace of our own, never
// on the host's interfaces: netem on that namespace's lo, the nft rules on a
// veth pair that lives only there.
void probe_kernel(Capabilities& c, CommandLog& log) {
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

void add_skip_notes(Capabilities& c) {
  utsname u{};
  ::uname(&u);
  if (!c.root) c.notes.push_back("not root: two-host topology and every fault test are skipped (loopback only)");
  else if (!c.netns) c.notes.push_back("`ip netns add` fails: two-host topology and fault tests are skipped");
  if (c.root && !c.host_netem)
    c.notes.push_back(fmt::format("netem backend: kernel {} has no sch_netem; auto uses nftables for loss/dup-only "
                                  "specs and uml-netem for the rest", u.release));
  if (c.root && !c.nftables) c.notes.push_back("nftables backend: nft netdev ingress/egress with dup/numgen fails here");
  if (!c.rpcbind) c.notes.push_back("rpcbind/rpcinfo missing: the rpcbind test of make test is skipped (install rpcbind)");
  if (!c.sockperf) c.notes.push_back("sockperf missing: the speed run's raw-socket calibration is skipped");
  if (!c.gnuplot) c.notes.push_back("gnuplot missing: plots are skipped (tables and CSV are still written)");
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

}  // namespace

Capabilities probe_capabilities() {
  Capabilities c;
  CommandLog log;  // in memory: a probe is not part of any run
  c.root = ::geteuid() == 0;
  if (c.root) probe_kernel(c, log);
  probe_uml(c);
  c.rpcbind = installed("rpcbind") && installed("rpcinfo");
  c.sockperf = installed("sockperf");
  c.gnuplot = installed("gnuplot");
  c.cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (c.cpus < 1) c.cpus = 1;
  add_skip_notes(c);
  return c;
}

std::string describe(const Capabilities& c) {
  utsname u{};
  ::uname(&u);
  std::string out = fmt::format("rpclab doctor: what this machine can do (kernel {}, {} CPUs)\n", u.release, c.cpus);
  auto row = [&out](const char* what, bool v, const std::string& detail = "") {
    out += fmt::format("  {:<28}{}{}\n", what, yes_no(v), detail.empty() ? "" : "  (" + detail + ")");
  };
  row("root", c.root);
  row("network namespaces", c.netns);
  row("netem in the host kernel", c.host_netem);
  row("nftables netdev (loss, dup)", c.nftables);
  row("user-mode-linux + netem", c.uml, c.uml_kernel.empty() ? "" : "guest kernel " + c.uml_kernel);
  row("rpcbind + rpcinfo", c.rpcbind);
  row("sockperf", c.sockperf);
  row("gnuplot", c.gnuplot);
  std::vector<std::string> backends;
  if (c.host_netem) backends.push_back("netem");
  if (c.root && c.uml) backends.push_back("uml-netem");
  if (c.nftables) backends.push_back("nftables");
  out += fmt::format("fault backends usable: {}\n", backends.empty() ? "none" : fmt::format("{}", fmt::join(backends, ", ")));
  if (!c.notes.empty()) out += "skipped, and why:\n";
  for (const auto& n : c.notes) out += "  - " + n + "\n";
  return out;
}

}  // namespace rpclab::netem
