// rpclab-linktest: measure one impaired link (netem/link_test.h) and print
// configured vs measured loss/duplication as JSON.
//   rpclab-linktest --faults-backend nftables --loss 5
//   rpclab-linktest --faults-backend uml-netem --profile wan --count 2000 --pps 500
#include <unistd.h>

#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "netem/capabilities.h"
#include "netem/command_runner.h"
#include "netem/link_test.h"

namespace {

using rpclab::netem::FaultSpec;

std::string self_dir() {
  char exe[4096] = {};
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string path(exe, n > 0 ? n : 0);
  return path.substr(0, path.rfind('/'));
}

void add_spec_flags(CLI::App& app, FaultSpec& s, std::string& direction) {
  app.add_option("--loss", s.loss_pct, "loss percent");
  app.add_option("--loss-corr", s.loss_corr_pct, "loss correlation percent");
  app.add_option("--dup", s.dup_pct, "duplication percent");
  app.add_option("--delay-ms", s.delay_ms, "delay in milliseconds");
  app.add_option("--jitter-ms", s.jitter_ms, "jitter in milliseconds");
  app.add_option("--reorder", s.reorder_pct, "reorder percent (needs delay)");
  app.add_option("--corrupt", s.corrupt_pct, "corrupt percent");
  app.add_option("--rate", s.rate, "rate limit, e.g. 100mbit");
  app.add_option("--direction", direction, "to-server | to-client | both");
  app.add_option("--seed", s.seed, "random seed (applied where the backend can)");
}

// Datagrams the receiving sockets dropped count as loss at the endpoints
// but are not the backend's doing. A user-mode-linux guest has one slow CPU:
// at the default 10,000 probes/s it drops some; 2,000/s it keeps up with.
void warn_if_receivers_fell_behind(const nlohmann::json& result, const rpclab::netem::LinkTestOptions& o) {
  const nlohmann::json& drops = result.value("socket_drops", nlohmann::json::object());
  uint64_t dropped = drops.value("client", uint64_t{0}) + drops.value("server", uint64_t{0});
  if (dropped == 0) return;
  std::cerr << "rpclab-linktest: the receiving sockets dropped " << dropped << " datagrams (" << o.rate_pps
            << " probes/s was too fast for them), so the endpoints' loss is higher than the backend's; "
               "rerun with a lower --pps (2000 suits a user-mode-linux guest)\n";
}

}  // namespace

int main(int argc, char** argv) {
  namespace nm = rpclab::netem;
  CLI::App app{"rpclab-linktest: configured vs measured loss/duplication on a two-host link"};
  nm::LinkTestOptions o;
  FaultSpec flags;
  std::string direction = "both", backend = "auto", profile, spec_json, out, commands_log;
  int guest_timeout = 300;
  add_spec_flags(app, flags, direction);
  app.add_option("--profile", profile, "a profile in netem/profiles (instead of the fault flags)");
  app.add_option("--spec-json", spec_json, "the fault spec as JSON (used to re-run inside a guest)");
  app.add_option("--faults-backend", backend, "auto | netem | nftables | uml-netem");
  app.add_option("--count", o.count, "probes")->check(CLI::Range(1, 10000000));
  app.add_option("--pps", o.rate_pps, "probes per second")->check(CLI::Range(1.0, 1e6));
  app.add_option("--size", o.size, "datagram bytes")->check(CLI::Range(24, 65507));
  app.add_option("--drain-ms", o.drain_ms, "wait for late echoes")->check(CLI::Range(0, 600000));
  app.add_option("--work-dir", o.work_dir, "where probe outputs go (default: a new /tmp/rpclab-linktest.*)");
  app.add_option("--probe", o.probe_path, "rpclab-linkprobe (default: beside this program)");
  app.add_option("--out", out, "write the JSON here instead of stdout");
  app.add_option("--commands-log", commands_log, "append every command run, as replayable shell lines");
  app.add_option("--guest-timeout", guest_timeout, "uml-netem: seconds before the guest is killed");
  CLI11_PARSE(app, argc, argv);

  try {
    if (!spec_json.empty()) o.spec = FaultSpec::from_json(nlohmann::json::parse(spec_json));
    else if (!profile.empty()) o.spec = nm::load_profile(profile);
    else {
      o.spec = flags;
      auto d = nm::parse_direction(direction);
      if (!d) throw nm::SpecError("--direction " + direction + ": must be to-server, to-client or both");
      o.spec.direction = *d;
      o.spec.validate();
    }
    auto choice = nm::choose_backend(backend, o.spec, nm::probe_capabilities());
    if (choice.kind == nm::BackendKind::kNone) throw nm::SpecError("no faults given: nothing to measure");
    o.backend = choice.kind;
  } catch (const std::exception& e) {  // SpecError, bad --spec-json
    std::cerr << "rpclab-linktest: " << e.what() << "\n";
    return 2;
  }
  if (o.work_dir.empty()) {
    char tmpl[] = "/tmp/rpclab-linktest.XXXXXX";
    o.work_dir = ::mkdtemp(tmpl) ? tmpl : "/tmp";
  }
  if (o.probe_path.empty()) o.probe_path = self_dir() + "/rpclab-linkprobe";
  o.linktest_path = self_dir() + "/rpclab-linktest";
  o.guest_timeout = std::chrono::seconds(guest_timeout);
  try {
    nm::CommandLog log(commands_log);
    nlohmann::json result = nm::run_link_test(o, log);
    std::string text = result.dump(2);
    if (out.empty()) std::cout << text << "\n";
    else std::ofstream(out) << text << "\n";
    warn_if_receivers_fell_behind(result, o);
  } catch (const nm::CommandError& e) {
    std::cerr << "rpclab-linktest: setup failed: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "rpclab-linktest: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
