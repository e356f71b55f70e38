#include "netem/topology/capabilities_report.h"

#include <sys/utsname.h>

#include <fmt/format.h>

namespace rpclab::netem {
namespace {

struct Finding {
  std::string key;     // its field in metadata.json's capabilities
  std::string what;
  std::string result;  // yes | no | unknown
  std::string how;     // how it was found, or why it was not checked
};

constexpr const char* kNamespaces = "network namespaces";

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// A kernel feature, tried only as root; all but the namespace itself are
// tried inside the throwaway namespace, so only once it exists.
Finding kernel_feature(const Capabilities& c, const std::string& key, const std::string& what, bool found,
                       const std::string& trial) {
  if (!c.root) return {key, what, "unknown", "needs root to check: " + trial};
  if (!c.netns && what != kNamespaces)
    return {key, what, "unknown", "not checked: it is tried in a throwaway namespace, and `ip netns add` failed"};
  return {key, what, yes_no(found), trial + (found ? " worked" : " failed")};
}

Finding rpcbind_daemon(const Capabilities& c) {
  std::string key = "rpcbind_running", what = "rpcbind daemon running";
  if (!c.rpcbind_running) return {key, what, "unknown", "not checked: rpcinfo is not installed"};
  return {key, what, yes_no(*c.rpcbind_running),
          *c.rpcbind_running ? "`rpcinfo -p` got an answer from the local portmapper"
                             : "`rpcinfo -p` got no answer: no portmapper runs here"};
}

std::vector<Finding> findings(const Capabilities& c) {
  const std::string ns = "in a throwaway namespace";
  std::string uml_files = c.uml_kernel.empty() ? "/usr/bin/linux.uml, sch_netem.ko + veth.ko, busybox"
                                               : "/usr/bin/linux.uml, sch_netem.ko + veth.ko for guest kernel " +
                                                     c.uml_kernel + ", busybox";
  return {
      {"root", "root", yes_no(c.root), c.root ? "effective uid 0" : "effective uid not 0; capabilities alone are not checked"},
      kernel_feature(c, "network_namespaces", kNamespaces, c.netns, "`ip netns add` of a throwaway namespace"),
      kernel_feature(c, "host_netem", "netem in the host kernel", c.host_netem, "`tc qdisc add dev lo root netem` " + ns),
      kernel_feature(c, "nftables", "nftables netdev (loss, dup)", c.nftables,
                     "an nft netdev table with numgen, dup and drop rules on a veth pair " + ns),
      {"uml_netem", "user-mode-linux + netem", yes_no(c.uml),
       "looked for " + uml_files + "; the guest is not booted here, the first uml-netem cell boots it"},
      {"rpcbind_installed", "rpcbind + rpcinfo installed", yes_no(c.rpcbind_installed), "looked for both programs in PATH and /usr/sbin"},
      rpcbind_daemon(c),
      {"sockperf", "sockperf", yes_no(c.sockperf), "looked for it in PATH; not run"},
      {"gnuplot", "gnuplot", yes_no(c.gnuplot), "looked for it in PATH; not run"},
  };
}

// What will be skipped, and why; the uml-netem notes come from the probe.
std::vector<std::string> skip_notes(const Capabilities& c) {
  utsname u{};
  ::uname(&u);
  std::vector<std::string> notes;
  if (!c.root)
    notes.push_back("not root: two-host topology and every fault test are skipped (loopback only, on the host's lo, "
                    "where no wire capture gives the extra executions a cause)");
  else if (!c.netns)
    notes.push_back("`ip netns add` fails: two-host topology and fault tests are skipped, and loopback cells run on "
                    "the host's lo without the wire capture");
  if (c.root && c.netns && !c.host_netem)
    notes.push_back(fmt::format("netem backend: kernel {} has no sch_netem; auto uses nftables for loss/dup-only "
                                "specs and uml-netem for the rest", u.release));
  if (c.root && c.netns && !c.nftables)
    notes.push_back("nftables backend: nft netdev ingress/egress with dup/numgen fails here");
  notes.insert(notes.end(), c.notes.begin(), c.notes.end());
  if (!c.rpcbind_installed)
    notes.push_back("rpcbind/rpcinfo missing: the rpcbind test of make test is skipped (install rpcbind)");
  if (c.rpcbind_running == false)
    notes.push_back("no rpcbind daemon: `rpclab-server --rpcbind` cannot register and `rpclab-client --rpcbind` "
                    "cannot look up (start one with `rpcbind`); make test's rpcbind test starts its own");
  if (!c.sockperf) notes.push_back("sockperf missing: the speed run's raw-socket calibration is skipped");
  if (!c.gnuplot) notes.push_back("gnuplot missing: plots are skipped (tables and CSV are still written)");
  return notes;
}

std::vector<std::string> backends(const Capabilities& c) {
  std::vector<std::string> usable;
  if (!c.root) return usable;
  if (c.host_netem) usable.push_back("netem");
  if (c.uml) usable.push_back("uml-netem");
  if (c.nftables) usable.push_back("nftables");
  return usable;
}

std::string usable_backends(const Capabilities& c) {
  if (!c.root) return "none as this user (every fault backend needs root)";
  std::vector<std::string> usable = backends(c);
  return usable.empty() ? "none" : fmt::format("{}", fmt::join(usable, ", "));
}

}  // namespace

std::string describe(const Capabilities& c) {
  utsname u{};
  ::uname(&u);
  std::string out = fmt::format("rpclab doctor: what this machine can do (kernel {}, {} CPUs)\n", u.release, c.cpus);
  for (const Finding& f : findings(c)) out += fmt::format("  {:<29}{} ({})\n", f.what, f.result, f.how);
  out += "fault backends usable: " + usable_backends(c) + "\n";
  std::vector<std::string> notes = skip_notes(c);
  if (!notes.empty()) out += "skipped, and why:\n";
  for (const auto& n : notes) out += "  - " + n + "\n";
  return out;
}

nlohmann::json capabilities_json(const Capabilities& c) {
  nlohmann::json j;
  for (const Finding& f : findings(c))
    j[f.key] = f.result == "unknown" ? nlohmann::json() : nlohmann::json(f.result == "yes");
  j["uml_kernel"] = c.uml_kernel;
  j["cpus"] = c.cpus;
  j["fault_backends"] = backends(c);
  j["skipped"] = skip_notes(c);
  return j;
}

}  // namespace rpclab::netem
