// rpclab-linkprobe: the UDP probe of the link tests (netem/linktest/link_probe.h).
//   rpclab-linkprobe reflect --listen 198.18.0.1:9000 [--ready-file F]
//   rpclab-linkprobe send --to 198.18.0.1:9000 --count 20000 --pps 10000
// Each prints one JSON object on stdout: the reflector when SIGTERM/SIGINT
// stops it, the sender when it is done.
#include <signal.h>

#include <atomic>
#include <iostream>

#include "common/cli_support.h"
#include "netem/linktest/link_probe.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rpclab-linkprobe: UDP echo probe measuring loss and duplication per direction", "rpclab-linkprobe"};
  app.require_subcommand(1);
  std::string listen, to;
  rpclab::netem::ReflectorOptions ro;
  rpclab::netem::SenderOptions so;
  auto* reflect = app.add_subcommand("reflect", "echo every datagram until SIGTERM, then print counts");
  reflect->add_option("--listen", listen, "ADDR:PORT to bind")->required()->check(rpclab::host_port());
  reflect->add_option("--ready-file", ro.ready_file, "file written once the socket is bound (- is standard output)")
      ->check(rpclab::writable_file());
  auto* send = app.add_subcommand("send", "send numbered probes, count echoes, print both directions");
  send->add_option("--to", to, "reflector ADDR:PORT")->required()->check(rpclab::host_port());
  send->add_option("--count", so.count, "probes to send")->check(rpclab::in_range(1, 100000000))
      ->capture_default_str();
  send->add_option("--pps", so.rate_pps, "probes per second")->check(rpclab::in_range(1.0, 1e7))
      ->capture_default_str();
  send->add_option("--size", so.size, "datagram bytes")->check(rpclab::in_range(24, 65507))->capture_default_str();
  send->add_option("--drain-ms", so.drain_ms, "wait for late echoes")->check(rpclab::in_range(0, 600000))
      ->capture_default_str();
  rpclab::add_version_flags(app);
  rpclab::parse_or_exit(app, argc, argv);
  // Checked while parsing: these cannot fail.
  if (reflect->parsed()) rpclab::split_host_port(listen, "--listen", &ro.host, &ro.port);
  if (send->parsed()) rpclab::split_host_port(to, "--to", &so.host, &so.port);
  try {
    if (reflect->parsed()) {
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sigaction(SIGTERM, &sa, nullptr);
      sigaction(SIGINT, &sa, nullptr);
      std::cout << rpclab::netem::run_reflector(ro, g_stop).dump() << std::endl;
    } else {
      std::cout << rpclab::netem::run_sender(so).dump() << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << "rpclab-linkprobe: " << e.what() << "\n";
    return rpclab::kExitFailed;
  }
  return rpclab::kExitOk;
}
