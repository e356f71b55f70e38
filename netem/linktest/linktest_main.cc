// rpclab-linktest: measure one impaired link (netem/linktest/link_test.h) and print
// configured vs measured loss/duplication as JSON.
//   rpclab-linktest --faults-backend nftables --loss 5
//   rpclab-linktest --faults-backend uml-netem --profile wan --count 2000 --pps 500
#include <unistd.h>

#include <iostream>

#include "common/atomic_file.h"
#include "common/cli_support.h"
#include "netem/config/backend_choice.h"
#include "netem/config/fault_config.h"
#include "netem/config/fault_profile.h"
#include "netem/spec/spec_error.h"
#include "netem/linktest/link_test.h"
#include "netem/topology/capabilities.h"
#include "process/command_runner.h"

namespace {

using rpclab::netem::FaultSpec;

std::string self_dir() {
  char exe[4096] = {};
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string path(exe, n > 0 ? n : 0);
  return path.substr(0, path.rfind('/'));
}

// The ranges are validate()'s (netem/config/fault_config.h); checking them here too makes
// "--loss abc" say that abc is not a number.
void add_spec_flags(CLI::App& app, FaultSpec& s, std::string& direction) {
  auto percent = rpclab::in_range(0.0, 100.0);
  app.add_option("--loss", s.loss_pct, "loss percent")->check(percent)->capture_default_str();
  app.add_option("--loss-corr", s.loss_corr_pct, "loss correlation percent")->check(percent)->capture_default_str();
  app.add_option("--dup", s.dup_pct, "duplication percent")->check(percent)->capture_default_str();
  app.add_option("--delay-ms", s.delay_ms, "delay in milliseconds")->check(rpclab::in_range(0.0, 60000.0))
      ->capture_default_str();
  app.add_option("--jitter-ms", s.jitter_ms, "jitter in milliseconds (at most the delay)")
      ->check(rpclab::in_range(0.0, 60000.0))->capture_default_str();
  app.add_option("--reorder", s.reorder_pct, "reorder percent (needs delay)")->check(percent)->capture_default_str();
  app.add_option("--corrupt", s.corrupt_pct, "corrupt percent")->check(percent)->capture_default_str();
  app.add_option("--rate", s.rate, "rate limit, e.g. 100mbit (default: none)");
  app.add_option("--direction", direction, "to-server | to-client | both")
      ->check(CLI::IsMember({"to-server", "to-client", "both"}))->capture_default_str();
  app.add_option("--seed", s.seed, "random seed, applied where the backend can (default: none)");
}

// Datagrams the receiving sockets dropped count as loss at the endpoints
// but are not the backend's doing. The sender reads its echoes between
// probes and keeps at most 1,024 unanswered (link_probe.cc), so a receiver
// that falls behind slows it down rather than overflowing; a drop left
// means a receive buffer smaller than the 8 MiB asked for.
void warn_if_receivers_fell_behind(const nlohmann::json& result, const rpclab::netem::LinkTestOptions& o) {
  const nlohmann::json& drops = result.value("socket_drops", nlohmann::json::object());
  uint64_t dropped = drops.value("client", uint64_t{0}) + drops.value("server", uint64_t{0});
  if (dropped == 0) return;
  std::cerr << "rpclab-linktest: the receiving sockets dropped " << dropped << " datagrams (" << o.rate_pps
            << " probes/s was too fast for them), so the endpoints' loss is higher than the backend's; "
               "rerun with a lower --pps\n";
}

}  // namespace

int main(int argc, char** argv) {
  namespace nm = rpclab::netem;
  CLI::App app{"rpclab-linktest: configured vs measured loss/duplication on a two-host link", "rpclab-linktest"};
  nm::LinkTestOptions o;
  FaultSpec flags;
  std::string direction = "both", backend = "auto", profile, spec_json, out = "-", commands_log;
  int guest_timeout = 300;
  add_spec_flags(app, flags, direction);
  app.add_option("--profile", profile, "a profile in netem/profiles (instead of the fault flags)");
  app.add_option("--spec-json", spec_json, "the fault spec as JSON (used to re-run inside a guest)");
  app.add_option("--faults-backend", backend, "auto | netem | nftables | uml-netem")
      ->check(CLI::IsMember({"auto", "netem", "uml-netem", "nftables"}))->capture_default_str();
  app.add_option("--count", o.count, "probes")->check(rpclab::in_range(1, 10000000))->capture_default_str();
  app.add_option("--pps", o.rate_pps, "probes per second")->check(rpclab::in_range(1.0, 1e6))->capture_default_str();
  app.add_option("--size", o.size, "datagram bytes")->check(rpclab::in_range(24, 65507))->capture_default_str();
  app.add_option("--drain-ms", o.drain_ms, "wait for late echoes")->check(rpclab::in_range(0, 600000))
      ->capture_default_str();
  app.add_option("--work-dir", o.work_dir, "where probe outputs go (default: a new /tmp/rpclab-linktest.*)");
  app.add_option("--probe", o.probe_path, "rpclab-linkprobe (default: beside this program)");
  app.add_option("--out", out, "write the JSON here (- is standard output)")->check(rpclab::writable_file())
      ->capture_default_str();
  app.add_option("--commands-log", commands_log, "append every command run, as replayable shell lines");
  app.add_option("--guest-timeout", guest_timeout, "uml-netem: seconds before the guest is killed")
      ->check(rpclab::in_range(1, 24 * 3600))->capture_default_str();
  rpclab::add_version_flags(app);
  rpclab::parse_or_exit(app, argc, argv);

  try {
    if (!spec_json.empty()) o.spec = nlohmann::json::parse(spec_json).get<FaultSpec>();
    else if (!profile.empty()) o.spec = nm::load_profile(profile);
    else {
      o.spec = flags;
      o.spec.direction = *nm::parse_direction(direction);  // checked while parsing
      nm::validate(o.spec);
    }
    auto choice = nm::choose_backend(backend, o.spec, nm::probe_capabilities());
    if (choice.kind == nm::BackendKind::kNone) throw nm::SpecError("no faults given: nothing to measure");
    o.backend = choice.kind;
  } catch (const std::exception& e) {  // SpecError, bad --spec-json
    std::cerr << "rpclab-linktest: " << e.what() << "\n";
    return rpclab::kExitUsage;
  }
  if (o.work_dir.empty()) {
    char tmpl[] = "/tmp/rpclab-linktest.XXXXXX";
    o.work_dir = ::mkdtemp(tmpl) ? tmpl : "/tmp";
  }
  if (o.probe_path.empty()) o.probe_path = self_dir() + "/rpclab-linkprobe";
  o.linktest_path = self_dir() + "/rpclab-linktest";
  o.guest_timeout = std::chrono::seconds(guest_timeout);
  try {
    rpclab::process::CommandLog log(commands_log);
    nlohmann::json result = nm::run_link_test(o, log);
    rpclab::write_file_atomically(out, result.dump(2) + "\n");
    warn_if_receivers_fell_behind(result, o);
  } catch (const rpclab::process::CommandError& e) {
    std::cerr << "rpclab-linktest: setup failed: " << e.what() << "\n";
    return rpclab::kExitSetup;
  } catch (const std::exception& e) {
    std::cerr << "rpclab-linktest: " << e.what() << "\n";
    return rpclab::kExitFailed;
  }
  return rpclab::kExitOk;
}
