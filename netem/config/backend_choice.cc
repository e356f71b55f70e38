#include "netem/config/backend_choice.h"

#include <sys/utsname.h>

#include <algorithm>

#include <fmt/format.h>

#include "netem/config/fault_config.h"
#include "netem/config/fault_events.h"
#include "netem/spec/fault_fields.h"
#include "netem/spec/spec_error.h"

namespace rpclab::netem {

namespace {

constexpr const char* kUmlInstall = "apt-get install user-mode-linux busybox-static (or make deps)";

std::string kernel_release() {
  utsname u{};
  ::uname(&u);
  return u.release;
}

std::string words(const std::vector<std::string>& list) { return fmt::format("{}", fmt::join(list, ", ")); }

// What `kind` can apply, from the field and event tables: "loss,
// duplication, partition, reset".
std::string applies(BackendKind kind) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& w) {
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  };
  for (const FaultField& f : fault_fields())
    if (f.summary_word && (f.backends & backend_bit(kind))) add(f.what);
  for (const EventKind& e : event_kinds())
    if (e.target == EventTarget::kLink && (e.backends & backend_bit(kind))) add(e.name);
  return words(out);
}

// Throws unless `kind` can apply all of `spec`: "--faults-backend nftables
// cannot apply delay (it applies loss, duplication, partition, reset): use ...".
void require_can_apply(BackendKind kind, const FaultSpec& spec, const std::string& instead) {
  auto missing = unsupported_by(spec, kind);
  if (!missing.empty())
    throw SpecError(fmt::format("--faults-backend {} cannot apply {} (it applies {}): use {}", backend_name(kind),
                                words(missing), applies(kind), instead));
}

Choice require(BackendKind kind, bool available, const std::string& missing, const std::string& why) {
  if (!available) throw SpecError(missing);
  return {kind, why};
}

}  // namespace

static Choice choose_auto(const FaultSpec& spec, const Capabilities& caps, const std::string& no_netem,
                          const std::string& no_nft, const std::string& no_uml);

Choice choose_backend(const std::string& requested, const FaultSpec& spec, const Capabilities& caps) {
  if (requested != "auto" && !parse_backend(requested))
    throw SpecError("--faults-backend " + requested + ": must be auto, netem, uml-netem or nftables");
  if (is_empty(spec)) return {BackendKind::kNone, "no faults requested"};
  if (!has_link_faults(spec)) return {BackendKind::kNone, "no link faults requested (server events need no backend)"};
  if (!caps.root) throw SpecError("faults (" + summary(spec) + ") need root: network namespaces, tc and nft");
  const std::string no_netem = "this kernel (" + kernel_release() + ") has no sch_netem";
  const std::string no_uml = std::string("user-mode-linux is not installed: ") + kUmlInstall;
  const std::string no_nft =
      "nftables with the netdev family (ingress/egress hooks, dup, numgen) does not work here (it needs the nftables "
      "package and a kernel of 5.16 or later for the egress hook; otherwise use uml-netem: " + std::string(kUmlInstall) +
      ")";

  if (requested == "netem") {
    require_can_apply(BackendKind::kNetem, spec, "nftables");
    return require(BackendKind::kNetem, caps.host_netem,
                   "--faults-backend netem: " + no_netem + "; use uml-netem (" + kUmlInstall +
                       ") or, for " + applies(BackendKind::kNftables) + " only, nftables",
                   "requested; host kernel has sch_netem");
  }
  if (requested == "uml-netem") {
    require_can_apply(BackendKind::kUmlNetem, spec, "nftables");
    return require(BackendKind::kUmlNetem, caps.uml, "--faults-backend uml-netem: " + no_uml,
                   "requested; netem inside a user-mode-linux " + caps.uml_kernel + " guest");
  }
  if (requested == "nftables") {
    require_can_apply(BackendKind::kNftables, spec, "netem or uml-netem");
    return require(BackendKind::kNftables, caps.nftables, "--faults-backend nftables: " + no_nft,
                   "requested; nftables can apply all the spec asks");
  }
  return choose_auto(spec, caps, no_netem, no_nft, no_uml);
}

// The first backend that is here and can apply all of `spec`.
static Choice choose_auto(const FaultSpec& spec, const Capabilities& caps, const std::string& no_netem,
                          const std::string& no_nft, const std::string& no_uml) {
  auto netem_lacks = unsupported_by(spec, BackendKind::kNetem), nft_lacks = unsupported_by(spec, BackendKind::kNftables);
  // A reset: nftables where it can (`ss -K` at its start, nft's reject);
  // netem's is an iptables rule, the way of a guest without nft's netdev.
  bool resets = std::any_of(spec.events.begin(), spec.events.end(),
                            [](const FaultEvent& e) { return e.kind && std::string(e.kind->name) == "reset"; });
  if (resets && nft_lacks.empty() && caps.nftables)
    return {BackendKind::kNftables, "the spec resets connections: nftables resets with ss -K and its reject rule"};
  if (caps.host_netem && netem_lacks.empty()) return {BackendKind::kNetem, "host kernel has sch_netem"};
  std::string why_not_netem = caps.host_netem ? "netem cannot apply " + words(netem_lacks) : no_netem;
  if (nft_lacks.empty() && caps.nftables)
    return {BackendKind::kNftables, why_not_netem + "; nftables can apply all the spec asks"};
  if (caps.uml && netem_lacks.empty() && unsupported_by(spec, BackendKind::kUmlNetem).empty())
    return {BackendKind::kUmlNetem, why_not_netem + "; spec asks " + (nft_lacks.empty() ? "what nftables does, but "
                                    "nftables is unusable" : "for " + words(nft_lacks) + ", which nftables cannot do")};
  throw SpecError("no fault backend can apply " + summary(spec) + " here: " + why_not_netem + "; " +
                  (nft_lacks.empty() ? no_nft : "nftables cannot do " + words(nft_lacks)) + "; " +
                  (netem_lacks.empty() ? no_uml : "netem and uml-netem cannot do " + words(netem_lacks)));
}

void check_backend_can_apply(const std::string& requested, const FaultSpec& spec) {
  Capabilities everything;  // a machine that has every backend, so only what a backend can do is left
  everything.root = everything.netns = everything.host_netem = everything.nftables = everything.uml = true;
  choose_backend(requested, spec, everything);
}

}  // namespace rpclab::netem
