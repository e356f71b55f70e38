// rpclab_bench_calls: p50/p99 per call for every transport at 12 B and
// 8 KiB, persistent connection, loopback, from one run (issue 2's closing
// note). A plain timing loop: each cell is one rpclab-client process making
// ECHO calls with --record, and the percentiles come from that record's
// exact per-call latencies. The full speed experiment is `rpclab speed`.
//
// A VM's idle wake-up can add ~100 us to every call, so the run holds
// /dev/cpu_dma_latency at 0 (as latency tuning tools do) and says whether
// it could.
#include <algorithm>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "common/cli_support.h"
#include "transport/transport.h"
#include "harness/run/latency_pin.h"
#include "harness/kit/stats.h"
#include "support/client_process.h"
#include "support/server_process.h"

namespace {

using namespace rpclab;

struct Cell {
  std::string transport;
  size_t size;
  std::string result;  // "p50 | p99 | ok calls" or why it was skipped
};

Cell measure(const TransportRow& row, test::ServerProcess& server, size_t size, uint64_t calls, uint64_t warmup,
             const test::TempDir& dir) {
  Cell cell{std::string(row.name), size, ""};
  ClientOptions options;
  options.transport = row.name;
  if (size > row.client_settings(options).max_payload) {
    cell.result = "skipped: does not fit one call | |";
    return cell;
  }
  std::vector<std::string> args = {"--transport", std::string(row.name), "--server", server.address(), "--op",
                                   "echo", "--size", std::to_string(size), "--calls", std::to_string(calls),
                                   "--warmup", std::to_string(warmup), "--connect", "persistent"};
  test::ClientRun run = test::run_client(args, dir);
  std::vector<double> ok_us;
  for (const CallEntry& call : run.record.calls)
    if (call.kind == ErrorKind::kOk) ok_us.push_back(call.latency_ns / 1000.0);
  if (run.process.exit_code != 0 || ok_us.empty()) {
    cell.result = "failed: " + run.process.err + " | |";
    return cell;
  }
  std::sort(ok_us.begin(), ok_us.end());
  char text[128];
  std::snprintf(text, sizeof text, "%.1f | %.1f | %zu of %zu", harness::percentile_sorted(ok_us, 50),
                harness::percentile_sorted(ok_us, 99), ok_us.size(), run.record.calls.size());
  cell.result = text;
  return cell;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rpclab_bench_calls: p50/p99 per ECHO call, every transport, 12 B and 8 KiB", "rpclab_bench_calls"};
  uint64_t calls = 20000, warmup = 2000;
  std::vector<size_t> sizes = {12, 8192};
  app.add_option("--calls", calls, "recorded calls per cell")->check(CLI::Range(uint64_t{100}, uint64_t{1} << 32));
  app.add_option("--warmup", warmup, "calls made first in each cell and not recorded");
  app.add_option("--sizes", sizes, "ECHO payload bytes")->delimiter(',');
  rpclab::parse_or_exit(app, argc, argv);

  harness::DmaLatencyHold hold;
  std::printf("# rpclab_bench_calls: loopback, persistent, %llu ECHO calls per cell after %llu warm-up\n",
              (unsigned long long)calls, (unsigned long long)warmup);
  std::printf("# /dev/cpu_dma_latency: %s\n",
              hold.held() ? "held at 0 for the whole run" : ("NOT held: " + hold.why_not()).c_str());
  std::printf("# each cell: rpclab-client --transport T --server 127.0.0.1:PORT --op echo --size S --calls %llu "
              "--warmup %llu --connect persistent --record FILE\n\n",
              (unsigned long long)calls, (unsigned long long)warmup);
  std::printf("| transport | size B | p50 us | p99 us | ok calls |\n|---|---|---|---|---|\n");
  test::TempDir dir;
  for (const TransportRow& row : transports()) {
    test::ServerProcess server{std::string(row.name)};
    for (size_t size : sizes) {
      Cell cell = measure(row, server, size, calls, warmup, dir);
      std::printf("| %s | %zu | %s |\n", cell.transport.c_str(), cell.size, cell.result.c_str());
      std::fflush(stdout);
    }
    server.stop();
  }
  return 0;
}
