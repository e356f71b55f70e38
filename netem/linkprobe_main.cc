// rpclab-linkprobe: the UDP probe of the link tests (netem/link_probe.h).
//   rpclab-linkprobe reflect --listen 198.18.0.1:9000 [--ready-file F]
//   rpclab-linkprobe send --to 198.18.0.1:9000 --count 20000 --pps 10000
// Each prints one JSON object on stdout: the reflector when SIGTERM/SIGINT
// stops it, the sender when it is done.
#include <signal.h>

#include <atomic>
#include <iostream>

#include <CLI/CLI.hpp>

#include "netem/link_probe.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

void split(const std::string& text, std::string& host, uint16_t& port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) throw CLI::ValidationError("expected ADDR:PORT, got " + text);
  host = text.substr(0, colon);
  port = static_cast<uint16_t>(std::stoi(text.substr(colon + 1)));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rpclab-linkprobe: UDP echo probe measuring loss and duplication per direction"};
  app.require_subcommand(1);
  std::string listen, to;
  rpclab::netem::ReflectorOptions ro;
  rpclab::netem::SenderOptions so;
  auto* reflect = app.add_subcommand("reflect", "echo every datagram until SIGTERM, then print counts");
  reflect->add_option("--listen", listen, "ADDR:PORT to bind")->required();
  reflect->add_option("--ready-file", ro.ready_file, "file written once the socket is bound");
  auto* send = app.add_subcommand("send", "send numbered probes, count echoes, print both directions");
  send->add_option("--to", to, "reflector ADDR:PORT")->required();
  send->add_option("--count", so.count, "probes to send")->check(CLI::Range(1, 100000000));
  send->add_option("--pps", so.rate_pps, "probes per second")->check(CLI::Range(1.0, 1e7));
  send->add_option("--size", so.size, "datagram bytes")->check(CLI::Range(24, 65507));
  send->add_option("--drain-ms", so.drain_ms, "wait for late echoes")->check(CLI::Range(0, 600000));
  try {
    app.parse(argc, argv);
    if (reflect->parsed()) split(listen, ro.host, ro.port);
    if (send->parsed()) split(to, so.host, so.port);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "rpclab-linkprobe: " << e.what() << "\n";
    return 2;
  }
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
    return 1;
  }
  return 0;
}
