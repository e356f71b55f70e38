// rpclab_bench_at_most_once: what the at-most-once table costs per NEXT in
// the server core itself, no transport: no table, the per-server table
// (--at-most-once), and the table shared in a redis-server on loopback
// (--at-most-once-shared: two round trips per call, claim and complete).
// One thread, one client, seqs upwards; each mode runs --rounds times in
// turn and the median round is printed. RIFL (SOSP 2015) measured +530 ns
// on a 13.5 us call.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/cli_support.h"
#include "server/server_core.h"
#include "server/shared_at_most_once.h"
#include "support/redis_process.h"

namespace {

using namespace rpclab;

double ns_per_next(ServerCore& core, uint32_t client_id, uint64_t calls) {
  auto start = std::chrono::steady_clock::now();
  for (uint64_t seq = 0; seq < calls; ++seq) core.next(client_id, static_cast<uint32_t>(seq));
  std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
  return took.count() / static_cast<double>(calls);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rpclab_bench_at_most_once: ns per NEXT in ServerCore, without a table, per server, shared in Redis",
               "rpclab_bench_at_most_once"};
  uint64_t calls = 20000;
  int rounds = 5;
  app.add_option("--calls", calls, "NEXT calls per round")->check(CLI::Range(uint64_t{100}, uint64_t{1} << 31));
  app.add_option("--rounds", rounds, "rounds per mode, taken in turn")->check(CLI::Range(1, 100));
  rpclab::parse_or_exit(app, argc, argv);
  if (!test::RedisProcess::installed()) {
    std::fprintf(stderr, "rpclab_bench_at_most_once: redis-server is not installed (tools/deps.sh build)\n");
    return kExitSetup;
  }
  test::RedisProcess redis;

  struct Mode {
    const char* name;
    std::function<ServerCoreOptions()> options;
    std::vector<double> ns;
  };
  std::vector<Mode> modes = {
      {"no table", [] { return ServerCoreOptions{}; }, {}},
      {"per-server table (--at-most-once)",
       [] {
         ServerCoreOptions o;
         o.at_most_once = true;
         return o;
       },
       {}},
      {"shared table, Redis on loopback (--at-most-once-shared)",
       [&] {
         ServerCoreOptions o;
         o.at_most_once_scope = std::make_shared<SharedAtMostOnceTable>("127.0.0.1", redis.port(),
                                                                       SharedAtMostOnceTable::kDefaultLeaseMs);
         return o;
       },
       {}},
  };
  uint32_t client_id = 1;  // a new client per round: the shared table starts each round empty for it
  for (int round = 0; round < rounds; ++round)
    for (Mode& mode : modes) {
      ServerCore core(mode.options());
      mode.ns.push_back(ns_per_next(core, client_id++, calls));
    }
  std::printf("# rpclab_bench_at_most_once --calls %llu --rounds %d: one thread, ServerCore::next, no journal\n",
              (unsigned long long)calls, rounds);
  std::printf("| table | ns per NEXT (median of %d rounds) | min | max |\n|---|---|---|---|\n", rounds);
  for (Mode& mode : modes) {
    std::sort(mode.ns.begin(), mode.ns.end());
    std::printf("| %s | %.0f | %.0f | %.0f |\n", mode.name, mode.ns[mode.ns.size() / 2], mode.ns.front(),
                mode.ns.back());
  }
  return kExitOk;
}
