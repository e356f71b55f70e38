#include "netem/fault_backend.h"

#include <sys/utsname.h>

#include <fmt/format.h>

#include "netem/backends.h"

namespace rpclab::netem {

namespace {

constexpr const char* kUmlInstall = "apt-get install user-mode-linux busybox-static (or make deps)";

std::string kernel_release() {
  utsname u{};
  ::uname(&u);
  return u.release;
}

std::string nft_limits(const FaultSpec& spec) {
  std::vector<std::string> extra;
  if (spec.delay_ms > 0 || spec.jitter_ms > 0) extra.push_back("delay");
  if (spec.reorder_pct > 0) extra.push_back("reorder");
  if (spec.corrupt_pct > 0) extra.push_back("corrupt");
  if (!spec.rate.empty()) extra.push_back("rate");
  if (spec.loss_corr_pct > 0) extra.push_back("loss correlation");
  if (spec.ge_p_pct) extra.push_back("Gilbert-Elliott loss");
  return fmt::format("{}", fmt::join(extra, ", "));
}

Choice require(BackendKind kind, bool available, const std::string& missing, const std::string& why) {
  if (!available) throw SpecError(missing);
  return {kind, why};
}

nlohmann::json direction_json(const DirectionCounters& d) {
  return {{"offered", d.offered},
          {"dropped", d.dropped},
          {"duplicated", d.duplicated},
          {"delivered", d.delivered},
          {"bytes_delivered", d.bytes_delivered}};
}

DirectionCounters minus(const DirectionCounters& a, const DirectionCounters& b) {
  return {a.offered - b.offered, a.dropped - b.dropped, a.duplicated - b.duplicated, a.delivered - b.delivered,
          a.bytes_delivered - b.bytes_delivered};
}

}  // namespace

std::string backend_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::kNone: return "none";
    case BackendKind::kNetem: return "netem";
    case BackendKind::kUmlNetem: return "uml-netem";
    case BackendKind::kNftables: return "nftables";
  }
  return "none";
}

std::optional<BackendKind> parse_backend(const std::string& name) {
  for (auto k : {BackendKind::kNone, BackendKind::kNetem, BackendKind::kUmlNetem, BackendKind::kNftables})
    if (backend_name(k) == name) return k;
  return std::nullopt;
}

nlohmann::json LinkCounters::to_json() const {
  return {{"to_server", direction_json(to_server)}, {"to_client", direction_json(to_client)}, {"source", source}};
}

Choice choose_backend(const std::string& requested, const FaultSpec& spec, const Capabilities& caps) {
  if (requested != "auto" && !parse_backend(requested))
    throw SpecError("--faults-backend " + requested + ": must be auto, netem, uml-netem or nftables");
  if (spec.empty()) return {BackendKind::kNone, "no faults requested"};
  if (!caps.root) throw SpecError("faults (" + spec.summary() + ") need root: network namespaces, tc and nft");
  const std::string no_netem = "this kernel (" + kernel_release() + ") has no sch_netem";
  const std::string no_uml = std::string("user-mode-linux is not installed: ") + kUmlInstall;
  const std::string no_nft =
      "nftables with the netdev family (ingress/egress hooks, dup, numgen) does not work here (it needs the nftables "
      "package and a kernel of 5.16 or later for the egress hook; otherwise use uml-netem: " + std::string(kUmlInstall) +
      ")";

  if (requested == "netem")
    return require(BackendKind::kNetem, caps.host_netem,
                   "--faults-backend netem: " + no_netem + "; use uml-netem (" + kUmlInstall +
                       ") or, for loss and duplication only, nftables",
                   "requested; host kernel has sch_netem");
  if (requested == "uml-netem")
    return require(BackendKind::kUmlNetem, caps.uml, "--faults-backend uml-netem: " + no_uml,
                   "requested; netem inside a user-mode-linux " + caps.uml_kernel + " guest");
  if (requested == "nftables") {
    if (!spec.only_loss_and_dup())
      throw SpecError("--faults-backend nftables does loss and duplication only; this spec also asks for " +
                      nft_limits(spec) + ": use netem or uml-netem");
    return require(BackendKind::kNftables, caps.nftables, "--faults-backend nftables: " + no_nft,
                   "requested; spec asks only loss/dup");
  }
  // auto
  if (caps.host_netem) return {BackendKind::kNetem, "host kernel has sch_netem"};
  if (spec.only_loss_and_dup() && caps.nftables)
    return {BackendKind::kNftables, no_netem + "; spec asks only loss/dup"};
  if (caps.uml)
    return {BackendKind::kUmlNetem, no_netem + "; spec asks " + (spec.only_loss_and_dup() ? "loss/dup but nftables "
                                    "is unusable" : "for " + nft_limits(spec) + ", which nftables cannot do")};
  throw SpecError("no fault backend can apply " + spec.summary() + " here: " + no_netem + "; " +
                  (spec.only_loss_and_dup() ? no_nft : "nftables cannot do " + nft_limits(spec)) + "; " + no_uml);
}

void check_backend_can_apply(const std::string& requested, const FaultSpec& spec) {
  Capabilities everything;  // a machine that has every backend, so only what a backend can do is left
  everything.root = everything.netns = everything.host_netem = everything.nftables = everything.uml = true;
  choose_backend(requested, spec, everything);
}

std::unique_ptr<FaultBackend> make_backend(BackendKind kind, const Topology& topology, CommandLog& log) {
  if (topology.kind() != TopologyKind::kTwoHost)
    throw SpecError("faults need the two-host topology: on loopback they would touch the host's own lo");
  switch (kind) {
    case BackendKind::kNetem: return detail::make_netem_backend(topology, log);
    case BackendKind::kNftables: return detail::make_nft_backend(topology, log);
    case BackendKind::kUmlNetem:
      throw SpecError("uml-netem is not applied from outside: run the cell in a guest (run_in_guest) with netem");
    case BackendKind::kNone: break;
  }
  return nullptr;
}

MeasuredFaults measure(const LinkCounters& before, const LinkCounters& after, Direction direction) {
  DirectionCounters sum;
  auto add = [&sum](const DirectionCounters& d) {
    sum.offered += d.offered;
    sum.dropped += d.dropped;
    sum.duplicated += d.duplicated;
  };
  if (detail::impairs(direction, Direction::kToServer)) add(minus(after.to_server, before.to_server));
  if (detail::impairs(direction, Direction::kToClient)) add(minus(after.to_client, before.to_client));
  MeasuredFaults m;
  m.offered = sum.offered;
  if (sum.offered == 0) return m;
  // Loss is over what the link carried (copies included: they can be lost
  // too); duplication over what the senders offered.
  m.loss_pct = 100.0 * sum.dropped / static_cast<double>(sum.offered + sum.duplicated);
  m.dup_pct = 100.0 * sum.duplicated / static_cast<double>(sum.offered);
  return m;
}

}  // namespace rpclab::netem
