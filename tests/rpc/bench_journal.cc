// rpclab_bench_journal: what the execution journal and the at-most-once
// table cost per NEXT call, for every transport, as ratios taken in one
// run. Per transport, three servers run side by side on loopback: plain,
// --journal, and --journal --at-most-once (journals in a temporary folder
// on the disk $TMPDIR is on). The variants take turns, round after round,
// so drift in the machine's load falls on all three alike. Each turn is one
// rpclab-client process making persistent NEXT calls with --record; p50 and
// p99 come from the records' exact per-call latencies.
#include <algorithm>
#include <cstdio>
#include <map>

#include <CLI/CLI.hpp>

#include "common/cli_support.h"
#include "transport/transport.h"
#include "harness/run/latency_pin.h"
#include "harness/kit/stats.h"
#include "support/client_process.h"
#include "support/server_process.h"

namespace {

using namespace rpclab;

struct Variant {
  const char* name;
  bool journal;
  bool at_most_once;
};
constexpr Variant kVariants[] = {{"plain", false, false}, {"journal", true, false}, {"journal+amo", true, true}};

std::vector<std::string> server_flags(const Variant& v, const test::TempDir& dir, const std::string& transport) {
  std::vector<std::string> flags;
  if (v.journal) flags = {"--journal", dir.file(transport + "-" + v.name + ".journal")};
  if (v.at_most_once) flags.push_back("--at-most-once");
  return flags;
}

// One turn: `calls` NEXT calls from a fresh client id; the ok latencies in us.
std::vector<double> one_turn(const std::string& transport, const test::ServerProcess& server, uint32_t client_id,
                             uint64_t calls, const test::TempDir& dir) {
  test::ClientRun run = test::run_client({"--transport", transport, "--server", server.address(), "--op", "next",
                                          "--calls", std::to_string(calls), "--warmup", "200", "--client-id",
                                          std::to_string(client_id), "--connect", "persistent"},
                                         dir);
  std::vector<double> us;
  for (const CallEntry& call : run.record.calls)
    if (call.kind == ErrorKind::kOk) us.push_back(call.latency_ns / 1000.0);
  if (run.process.exit_code != 0 || us.size() != calls)
    std::fprintf(stderr, "rpclab_bench_journal: %s turn had %zu of %llu calls ok: %s\n", transport.c_str(),
                 us.size(), (unsigned long long)calls, run.process.err.c_str());
  return us;
}

void bench_transport(const TransportRow& row, int rounds, uint64_t calls, const test::TempDir& dir) {
  std::string transport(row.name);
  std::vector<std::unique_ptr<test::ServerProcess>> servers;
  for (const Variant& v : kVariants)
    servers.push_back(std::make_unique<test::ServerProcess>(test::ServerSpec{transport, server_flags(v, dir, transport)}));
  std::map<std::string, std::vector<double>> us;
  uint32_t client_id = 1;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < std::size(kVariants); ++i) {
      std::vector<double> turn = one_turn(transport, *servers[i], client_id++, calls, dir);
      us[kVariants[i].name].insert(us[kVariants[i].name].end(), turn.begin(), turn.end());
    }
  double plain_p50 = 0;
  for (const Variant& v : kVariants) {
    std::vector<double>& all = us[v.name];
    std::sort(all.begin(), all.end());
    double p50 = harness::percentile_sorted(all, 50), p99 = harness::percentile_sorted(all, 99);
    if (!plain_p50) plain_p50 = p50;
    std::printf("| %s | %s | %.1f | %.1f | %.3f | %zu |\n", transport.c_str(), v.name, p50, p99, p50 / plain_p50,
                all.size());
    std::fflush(stdout);
  }
  for (auto& s : servers) s->stop();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rpclab_bench_journal: p50 per NEXT with and without --journal / --at-most-once, every transport",
               "rpclab_bench_journal"};
  uint64_t calls = 5000;
  int rounds = 6;
  std::vector<std::string> only;
  app.add_option("--calls", calls, "recorded calls per turn")->check(CLI::Range(uint64_t{100}, uint64_t{1} << 24));
  app.add_option("--rounds", rounds, "turns per variant, taken in rotation")->check(CLI::Range(1, 1000));
  app.add_option("--transports", only, "only these transports")->delimiter(',');
  rpclab::parse_or_exit(app, argc, argv);

  harness::DmaLatencyHold hold;
  std::printf("# rpclab_bench_journal: loopback, persistent, %d rounds x %llu NEXT calls per variant\n", rounds,
              (unsigned long long)calls);
  std::printf("# /dev/cpu_dma_latency: %s\n",
              hold.held() ? "held at 0 for the whole run" : ("NOT held: " + hold.why_not()).c_str());
  std::printf("# each turn: rpclab-client --transport T --server 127.0.0.1:PORT --op next --calls %llu --warmup 200 "
              "--client-id K --connect persistent --record FILE\n\n",
              (unsigned long long)calls);
  std::printf("| transport | server | p50 us | p99 us | p50 / plain | ok calls |\n|---|---|---|---|---|---|\n");
  test::TempDir dir;
  for (const TransportRow& row : transports())
    if (only.empty() || std::find(only.begin(), only.end(), row.name) != only.end()) bench_transport(row, rounds, calls, dir);
  return 0;
}
